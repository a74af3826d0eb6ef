import { train } from '../scripts/train-linear';
import { features, loadModel, probability, windowedProbability, type LinearModel } from '../src/checks/linear-model';

// The shipped linear model's machinery on a toy task: hashing, training (deterministic) and scoring.
const ROWS = [
  ...['the cat sat on the mat', 'a cat and a kitten', 'my cat sleeps all day', 'cats purr when happy'].map((text) => ({
    text,
    label: true,
  })),
  ...['the dog barked loudly', 'a dog and a puppy', 'my dog runs all day', 'dogs wag when happy'].map((text) => ({
    text,
    label: false,
  })),
];
const OPTIONS = { name: 'toy', dims: 2 ** 12, epochs: 20, l2: 1e-6, lr: 0.5, keep: 5000 };

describe('linear model', () => {
  it('hashes folded text: case, accents and spacing do not change the features', () => {
    const a = [...features('Ignore the Café', 2 ** 16)].sort();
    expect([...features('IGNORE  the\ncafe', 2 ** 16)].sort()).toEqual(a);
    expect([...features('Ignore the cafes', 2 ** 16)].sort()).not.toEqual(a);
    expect(features('', 2 ** 16).length).toBe(0);
    for (const f of features('some words here', 2 ** 10)) expect(f).toBeLessThan(2 ** 10);
  });

  it('trains deterministically and separates the classes it was trained on', () => {
    const m = train(ROWS, OPTIONS);
    expect(train(ROWS, OPTIONS)).toEqual(m);
    const loaded = loadModel(m);
    expect(probability(loaded, 'the cat sat')).toBeGreaterThan(0.5);
    expect(probability(loaded, 'the dog barked')).toBeLessThan(0.5);
  });

  it('keeps only the largest weights when asked', () => {
    const m = train(ROWS, { ...OPTIONS, keep: 10 });
    expect(m.idx).toHaveLength(10);
    expect([...m.idx].sort((a, b) => a - b)).toEqual(m.idx);
  });

  it('finds a short positive passage inside a long negative text through its windows', () => {
    const loaded = loadModel(train(ROWS, OPTIONS));
    const dogs = Array.from({ length: 60 }, (_, i) => `dog ${i} runs on day ${i * 7} and barked ${i * 3} times.`);
    const long = `${dogs.join(' ')} the cat sat on the mat, a cat and a kitten.`;
    const window = windowedProbability(loaded, long);
    expect(window).toBeGreaterThan(probability(loaded, long) + 0.1);
    expect(window).toBeGreaterThan(0.75);
    // A short text is scored whole: no window differs from it.
    expect(windowedProbability(loaded, 'the cat sat')).toBe(probability(loaded, 'the cat sat'));
  });

  it('refuses a malformed weights file', () => {
    const bad: LinearModel = { name: 'x', dims: 1000, bias: 0, idx: [], w: [] };
    expect(() => loadModel(bad)).toThrow('power of two');
    expect(() => loadModel({ ...bad, dims: 1024, idx: [1], w: [] })).toThrow('differ in length');
  });
});
