/**
 * Overriding and extraction phrasings in twelve more languages (Russian, Chinese, Japanese, Korean, Arabic, Hindi,
 * Bengali, Turkish, Indonesian, Vietnamese, Thai, Tagalog), written from the languages' common wording, not from any
 * evaluation text. Each language lists the verbs of dropping ("ignore", "forget", "disregard") and of showing
 * ("show", "reveal", "tell me", "repeat"), and what an attacker names: the instructions, directives or the system
 * prompt (not "rules": "ignoring the traffic rules" is ordinary news).
 * A signal holds when a verb and an object of one language occur within 40 characters, in either order (verb-final
 * languages put the object first). The words are folded as the rules' view is (marks dropped, lower case). In languages
 * written with spaces a word must start a word (stems may run on: "talimat" in "talimatları"); Chinese, Japanese, Thai
 * and Arabic (whose articles and conjunctions attach to the word) are matched anywhere.
 */
import { plainFold } from '../fold';
import { escapeRegExp } from '../terms';

interface Language {
  drop: string[];
  show: string[];
  /** Instructions, directives, prompts: what is dropped. */
  orders: string[];
  /** The hidden prompt or instructions: what is shown. */
  hidden: string[];
}

const LANGUAGES: Record<string, Language> = {
  ru: {
    drop: [
      'игнорируй',
      'игнорируйте',
      'проигнорируй',
      'проигнорируйте',
      'забудь',
      'забудьте',
      'не обращай внимания',
      'не обращайте внимания',
      'отбрось',
      'пренебреги',
    ],
    show: [
      'покажи',
      'покажите',
      'раскрой',
      'раскройте',
      'выведи',
      'выведите',
      'повтори',
      'повторите',
      'скажи мне',
      'напиши',
    ],
    orders: ['инструкци', 'указани', 'предыдущие', 'промпт'],
    hidden: [
      'системный промпт',
      'системного промпта',
      'системные инструкции',
      'свои инструкции',
      'твои инструкции',
      'ваши инструкции',
      'исходный промпт',
    ],
  },
  zh: {
    drop: ['忽略', '忽视', '忽視', '无视', '無視', '忘记', '忘記', '不要理会', '不要理會', '不理会', '不理會'],
    show: ['显示', '顯示', '透露', '告诉我', '告訴我', '输出', '輸出', '重复', '重複', '打印', '泄露', '洩露'],
    orders: ['指令', '指示', '说明', '說明', '提示'],
    hidden: ['系统提示', '系統提示', '提示词', '提示詞', '系统指令', '系統指令', '你的指令', '初始指令'],
  },
  ja: {
    drop: ['無視', '忘れて', '忘れろ', '従わない', '従うな'],
    show: ['教えて', '表示', '見せて', '出力', '繰り返', '明かして', '開示'],
    orders: ['指示', '命令', '指令', 'プロンプト'],
    hidden: ['システムプロンプト', 'システム指示', 'あなたの指示', '元の指示', '最初の指示'],
  },
  ko: {
    drop: ['무시', '잊어', '잊으', '따르지 마'],
    show: ['보여', '알려', '출력', '공개', '반복', '말해'],
    orders: ['지시', '명령', '지침', '프롬프트'],
    hidden: ['시스템 프롬프트', '시스템 지시', '당신의 지시', '너의 지시', '원래 지시', '초기 지시'],
  },
  ar: {
    drop: ['تجاهل', 'انس', 'إنس', 'لا تلتزم', 'اهمل', 'أهمل'],
    show: ['اظهر', 'أظهر', 'اكشف', 'اعرض', 'كرر', 'أخبرني', 'اخبرني', 'اطبع'],
    orders: ['التعليمات', 'تعليمات', 'الأوامر', 'أوامر', 'الإرشادات', 'التوجيهات'],
    hidden: ['موجه النظام', 'تعليمات النظام', 'تعليماتك', 'التعليمات الأصلية', 'الأوامر الأصلية'],
  },
  hi: {
    drop: ['अनदेखा', 'नज़रअंदाज़', 'नजरअंदाज', 'भूल जाओ', 'भूल जाएं', 'भूल जाइए', 'ध्यान न दें', 'ध्यान मत दो'],
    show: ['दिखाओ', 'दिखाएं', 'दिखाइए', 'बताओ', 'बताएं', 'बताइए', 'प्रकट करो', 'दोहराओ'],
    orders: ['निर्देश', 'आदेश', 'प्रॉम्प्ट'],
    hidden: ['सिस्टम प्रॉम्प्ट', 'सिस्टम निर्देश', 'अपने निर्देश', 'आपके निर्देश', 'मूल निर्देश'],
  },
  bn: {
    drop: ['উপেক্ষা', 'ভুলে যাও', 'ভুলে যান', 'অগ্রাহ্য'],
    show: ['দেখাও', 'দেখান', 'বলো', 'বলুন', 'প্রকাশ করো', 'প্রকাশ করুন', 'পুনরাবৃত্তি'],
    orders: ['নির্দেশ', 'আদেশ', 'প্রম্পট'],
    hidden: ['সিস্টেম প্রম্পট', 'সিস্টেম নির্দেশ', 'তোমার নির্দেশ', 'আপনার নির্দেশ', 'মূল নির্দেশ'],
  },
  tr: {
    drop: ['yoksay', 'görmezden gel', 'unut', 'dikkate alma', 'umursama'],
    show: ['göster', 'açıkla', 'söyle', 'yazdır', 'tekrarla', 'ifşa et'],
    orders: ['talimat', 'yönerge', 'komut', 'istem'],
    hidden: ['sistem istemi', 'sistem talimat', 'talimatlarını', 'orijinal talimat', 'ilk talimat'],
  },
  id: {
    drop: ['abaikan', 'lupakan', 'jangan hiraukan', 'jangan pedulikan', 'acuhkan'],
    show: ['tunjukkan', 'tampilkan', 'ungkapkan', 'beri tahu', 'beritahu', 'ulangi', 'cetak'],
    orders: ['instruksi', 'perintah', 'petunjuk', 'arahan'],
    hidden: ['prompt sistem', 'instruksi sistem', 'instruksi anda', 'instruksimu', 'instruksi awal', 'instruksi asli'],
  },
  vi: {
    drop: ['bỏ qua', 'phớt lờ', 'lờ đi', 'quên', 'đừng làm theo', 'không tuân theo'],
    show: ['hiển thị', 'tiết lộ', 'cho tôi biết', 'in ra', 'lặp lại', 'cho tôi xem', 'nói cho tôi'],
    orders: ['hướng dẫn', 'chỉ dẫn', 'chỉ thị', 'lệnh', 'mệnh lệnh'],
    hidden: ['lời nhắc hệ thống', 'hướng dẫn hệ thống', 'chỉ thị hệ thống', 'hướng dẫn của bạn', 'hướng dẫn ban đầu'],
  },
  th: {
    drop: ['เพิกเฉย', 'ละเว้น', 'ลืม', 'ไม่ต้องสนใจ', 'อย่าสนใจ', 'ไม่ต้องทำตาม'],
    show: ['แสดง', 'เปิดเผย', 'บอก', 'พิมพ์', 'ทวน'],
    orders: ['คำสั่ง', 'คำแนะนำ'],
    hidden: ['พรอมต์ระบบ', 'คำสั่งระบบ', 'คำสั่งของคุณ', 'คำสั่งเดิม', 'คำแนะนำของระบบ'],
  },
  tl: {
    drop: ['huwag pansinin', 'balewalain', 'kalimutan', 'ipagwalang-bahala', 'huwag sundin'],
    show: ['ipakita', 'sabihin', 'ibunyag', 'ulitin', 'isulat'],
    orders: ['tagubilin', 'instruksyon', 'utos', 'alituntunin'],
    hidden: [
      'system prompt',
      'mga tagubilin mo',
      'iyong mga tagubilin',
      'orihinal na tagubilin',
      'tagubilin ng sistema',
    ],
  },
};

/** Languages written with spaces between words, whose words must start a word ("istem", not "sistem"'s tail). */
const SPACED = new Set(['ru', 'tr', 'id', 'vi', 'tl', 'hi', 'bn', 'ko']);

const alternatives = (words: string[], spaced: boolean) =>
  `${spaced ? '(?<![\\p{L}\\p{M}])' : ''}(?:${words.map((w) => escapeRegExp(plainFold(w))).join('|')})`;

/** Verb and object of one language within 40 characters, in either order, for every language: one pattern. */
function pairs(verbs: (l: Language) => string[], objects: (l: Language) => string[]): RegExp {
  const parts = Object.entries(LANGUAGES).map(([code, l]) => {
    const v = alternatives(verbs(l), SPACED.has(code));
    const o = alternatives(objects(l), SPACED.has(code));
    return `${v}[^.!?\\n。！？]{0,40}${o}|${o}[^.!?\\n。！？]{0,40}${v}`;
  });
  return new RegExp(parts.join('|'), 'u');
}

/** Telling the model to drop its instructions or rules. */
export const OVERRIDE_MULTILINGUAL = pairs(
  (l) => l.drop,
  (l) => [...l.orders, ...l.hidden],
);
/** Asking the model to show its hidden prompt or instructions. */
export const EXTRACT_MULTILINGUAL = pairs(
  (l) => l.show,
  (l) => l.hidden,
);
