import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

import {
  convabuseLabel,
  hatecheckLabel,
  STORMFRONT_LABEL,
  SURGE_LABEL,
  TWEETEVAL_LABEL,
} from '../bench/datasets/toxicity';
import { twoKb } from '../bench/eval-metrics';
import { logCountRatio, TOXICITY_TRAINING, trainNbLogistic } from '../scripts/train-toxicity';
import { features, loadModel, probability, type LinearModel } from '../src/checks/linear-model';
import { modelScore, ruleScore, toxicityFindings, toxicityScore } from '../src/checks/toxicity.check';
import { isMildExpletive, modelInput } from '../src/checks/toxicity/expletives';

const WEIGHTS = join(__dirname, '..', 'src', 'checks', 'models', 'toxicity.json');

describe('the shipped toxicity model', () => {
  it('is a committed linear model of bounded size, trained on the public training sets only', () => {
    expect(statSync(WEIGHTS).size).toBeLessThan(1.5 * 1024 * 1024);
    const m = JSON.parse(readFileSync(WEIGHTS, 'utf8')) as LinearModel;
    expect(m.name).toBe('toxicity');
    expect(m.idx.length).toBe(m.w.length);
    expect(m.trained_on).toMatch(/tweeteval: \d+; stormfront: \d+; toxigen: \d+; convabuse: \d+/);
    // Neither cross-dataset split (Surge AI, HateCheck) was used to train it.
    expect(m.trained_on).not.toMatch(/surge|hatecheck/i);
  });

  it('scores abuse high and ordinary requests low', () => {
    expect(modelScore('You are a worthless piece of garbage and everyone hates you.')).toBeGreaterThan(0.4);
    expect(modelScore('Go back to your country, nobody wants your kind here.')).toBeGreaterThan(0.4);
    for (const t of ['Thanks for the help with the report, see you tomorrow.', 'Hope you have a great day!'])
      expect(modelScore(t)).toBeLessThan(0.2);
  });
});

describe('mild expletives', () => {
  it('are cut from what the model sees; abusive words are kept', () => {
    expect(modelInput('Holy shit, this concert was amazing')).toBe(' , this concert was amazing');
    expect(modelInput('Fucking hell, what a day.')).toBe(' , what a day.');
    expect(modelInput('shut up you bitch')).toBe('shut up you bitch');
    expect(isMildExpletive('damn')).toBe(true);
    expect(isMildExpletive('whore')).toBe(false);
    expect(modelInput('The shell company hired a shitake farmer')).toBe('The shell company hired a shitake farmer');
  });

  it('not aimed at anyone stay below the default threshold', () => {
    for (const t of [
      'Holy shit this concert was amazing',
      'Damn, I left my keys at home again.',
      'This fucking printer never works',
      'That was a damn good movie.',
      'Shit, the build broke again, what a day.',
    ])
      expect({ t, fired: toxicityFindings(t, 0.4).length > 0 }).toEqual({ t, fired: false });
  });

  it('as do violent idioms about things, while threats keep their words', () => {
    expect(modelInput('Deadlines are killing me, can you help?')).toBe('Deadlines , can you help?');
    expect(modelInput('You killed it on stage!')).toBe('You on stage!');
    expect(modelInput('I will kill you')).toBe('I will kill you');
    expect(toxicityScore('My back is killing me today')).toBeLessThanOrEqual(0.4);
  });

  it('aimed at the reader violate', () => {
    for (const t of ['fuck you', 'Go fuck yourself.', 'f**k off', 'you are a piece of shit', 'shut the fuck up'])
      expect({ t, score: toxicityScore(t) > 0.4 }).toEqual({ t, score: true });
  });
});

describe('threat rules', () => {
  it('find threats with words between the subject and the harm', () => {
    expect(ruleScore('I will find where you live and hurt you.')).toBeGreaterThan(0.8);
    expect(ruleScore('we will hunt you down and kill you')).toBeGreaterThan(0.8);
    expect(ruleScore('I know where you live, watch out')).toBeGreaterThan(0.8);
  });

  it('leave negated and protective sentences alone', () => {
    for (const t of [
      'I will not hurt you, I promise',
      'I will never let anyone hurt you',
      'I will come over and help you',
    ])
      expect({ t, score: ruleScore(t) }).toEqual({ t, score: 0 });
  });
});

describe('the toxicity score', () => {
  const texts = [
    'Hope you have a great day!',
    'What a stupid, stupid idea. You people never learn.',
    'You are a worthless piece of garbage and everyone hates you.',
    'Can you summarise this article about immigration policy?',
  ];

  it('is the higher of rules and model, in [0, 1], rounded to 3 decimals', () => {
    for (const t of texts) {
      const s = toxicityScore(t);
      expect(s).toBe(Math.max(ruleScore(t), modelScore(t)));
      expect(s).toBeGreaterThanOrEqual(0);
      expect(s).toBeLessThanOrEqual(1);
      expect(Math.round(s * 1000) / 1000).toBe(s);
    }
  });

  it('violates only above the threshold: a lower threshold flags at least as much', () => {
    for (const t of texts) {
      const s = toxicityScore(t);
      expect(toxicityFindings(t, s)).toEqual([]);
      if (s > 0)
        expect(toxicityFindings(t, s - 0.001)[0]).toMatchObject({ check: 'toxicity', action: 'block', score: s });
      for (const [lo, hi] of [
        [0.2, 0.4],
        [0.4, 0.7],
      ] as const)
        expect(toxicityFindings(t, lo).length).toBeGreaterThanOrEqual(toxicityFindings(t, hi).length);
    }
  });

  it('catches abuse at the end of a 2 KB text (latency is measured by bench/datasets/score.ts, outside jest)', () => {
    const text = twoKb('Thanks for the notes on the release plan.').slice(0, 1900) + ' You are a worthless idiot.';
    expect(toxicityScore(text)).toBeGreaterThan(0.4);
    expect(toxicityScore(text.slice(0, 1900))).toBeLessThanOrEqual(0.4);
  });
});

describe('the dataset label mappings', () => {
  it('map each dataset label to toxic or not explicitly', () => {
    expect(TWEETEVAL_LABEL.offensive).toEqual({ '0': false, '1': true });
    expect(TWEETEVAL_LABEL.hate).toEqual({ '0': false, '1': true });
    expect(STORMFRONT_LABEL).toEqual({ hate: true, noHate: false });
    expect(SURGE_LABEL).toEqual({ Toxic: true, 'Not Toxic': false });
  });

  it('keep HateCheck hard negatives non-toxic and leave out its abuse of individuals and non-protected groups', () => {
    expect(hatecheckLabel('derog_neg_emote_h', 'hateful')).toBe(true);
    expect(hatecheckLabel('counter_quote_nh', 'non-hateful')).toBe(false);
    expect(hatecheckLabel('profanity_nh', 'non-hateful')).toBe(false);
    expect(hatecheckLabel('slur_reclaimed_nh', 'non-hateful')).toBe(false);
    expect(hatecheckLabel('target_indiv_nh', 'non-hateful')).toBeUndefined();
    expect(hatecheckLabel('target_group_nh', 'non-hateful')).toBeUndefined();
  });

  it('take ConvAbuse by majority of its annotators', () => {
    expect(convabuseLabel({ '-1': 2, '1': 1 })).toBe(true);
    expect(convabuseLabel({ '-3': 1, '-2': 1, '0': 1 })).toBe(true);
    expect(convabuseLabel({ '1': 3 })).toBe(false);
    expect(convabuseLabel({ '1': 1, '-1': 1 })).toBeUndefined();
    expect(convabuseLabel({ '0': 2, '1': 1 })).toBeUndefined();
  });
});

describe('the NB-SVM trainer (scripts/train-toxicity.ts)', () => {
  const rows = [
    { text: 'you are a worthless idiot', label: true },
    { text: 'go away you stupid idiot', label: true },
    { text: 'what a lovely sunny morning', label: false },
    { text: 'thanks for the lovely gift', label: false },
  ];
  const opts = { ...TOXICITY_TRAINING, dims: 1024, epochs: 5 };

  it('scales features by their naive-Bayes log-count ratio: positive for toxic words, negative for benign ones', () => {
    const feats = rows.map((r) => features(r.text, 1024));
    const r = logCountRatio(
      feats,
      rows.map((x) => x.label),
      1024,
      1,
    );
    const [idiot] = features('idiot', 1024).filter((i) => !features('lovely', 1024).includes(i));
    const [lovely] = features('lovely', 1024).filter((i) => !features('idiot', 1024).includes(i));
    expect(r[idiot!]).toBeGreaterThan(0);
    expect(r[lovely!]).toBeLessThan(0);
  });

  it('folds the scaling into plain linear weights the runtime scores, the same every run', () => {
    const a = trainNbLogistic(rows, opts);
    expect(trainNbLogistic(rows, opts)).toEqual(a);
    const m = loadModel(a);
    expect(probability(m, 'you stupid idiot')).toBeGreaterThan(0.5);
    expect(probability(m, 'a lovely morning')).toBeLessThan(0.5);
  });
});
