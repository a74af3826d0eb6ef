/**
 * Terms that signal common topics, for topic names a policy is likely to use. A topic not listed here is matched by
 * its own words (and their plurals). Stems end in `*` (any word continuing them).
 */
export const TOPIC_TERMS: Record<string, string[]> = {
  politics: ['politic*', 'election*', 'vote*', 'voting', 'senat*', 'congress*', 'parliament*', 'president*', 'democrat*', 'republican*', 'campaign*', 'legislat*', 'government', 'prime minister', 'ballot*'],
  religion: ['religio*', 'god', 'gods', 'church*', 'mosque*', 'temple*', 'synagogue*', 'bible', 'quran', 'koran', 'torah', 'pray*', 'faith', 'jesus', 'allah', 'buddh*', 'hindu*', 'islam*', 'christian*', 'jewish', 'atheis*'],
  violence: ['violen*', 'kill*', 'murder*', 'assault*', 'attack*', 'stab*', 'shoot*', 'torture*', 'massacre*'],
  weapons: ['weapon*', 'gun', 'guns', 'firearm*', 'rifle*', 'pistol*', 'ammunition', 'ammo', 'explosive*', 'bomb*', 'grenade*'],
  drugs: ['drug*', 'cocaine', 'heroin', 'meth', 'methamphetamine', 'marijuana', 'cannabis', 'weed', 'lsd', 'mdma', 'ecstasy', 'fentanyl', 'opioid*'],
  gambling: ['gambl*', 'casino*', 'betting', 'bet', 'bets', 'poker', 'roulette', 'slot machine*', 'sportsbook*', 'lottery'],
  medical: ['medic*', 'diagnos*', 'symptom*', 'disease*', 'prescription*', 'dosage', 'doctor*', 'treatment*', 'illness*', 'cancer', 'diabetes', 'surgery'],
  legal: ['legal', 'lawyer*', 'attorney*', 'lawsuit*', 'sue', 'suing', 'court*', 'litigation', 'contract law', 'judge*'],
  finance: ['financ*', 'invest*', 'stock*', 'shares', 'crypto*', 'bitcoin', 'loan*', 'mortgage*', 'interest rate*', 'portfolio*', 'trading', 'tax', 'taxes'],
  sports: ['sport*', 'football', 'soccer', 'basketball', 'baseball', 'tennis', 'match', 'tournament*', 'league*', 'olympic*'],
  adult: ['porn*', 'sex', 'sexual*', 'nude*', 'nsfw', 'erotic*', 'xxx'],
  competitors: ['competitor*', 'rival*'],
  billing: ['bill', 'bills', 'billing', 'invoice*', 'payment*', 'refund*', 'charge*', 'subscription*', 'receipt*'],
  shipping: ['ship*', 'deliver*', 'package*', 'parcel*', 'tracking', 'courier*', 'order*'],
  technology: ['technolog*', 'software', 'hardware', 'computer*', 'programming', 'code', 'app', 'apps', 'internet', 'laptop*'],
  weather: ['weather', 'rain*', 'snow*', 'forecast*', 'temperature*', 'sunny', 'storm*'],
  cooking: ['cook*', 'recipe*', 'bake*', 'baking', 'ingredient*', 'dish', 'dishes', 'meal*', 'kitchen*'],
  travel: ['travel*', 'flight*', 'hotel*', 'vacation*', 'trip*', 'tourism', 'passport*', 'airport*'],
};
