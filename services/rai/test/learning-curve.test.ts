import { bestF1, foldOf, recallAtPrecision, rocAuc } from '../scripts/learning-curve';

// The learning curves' figures on small hand-checked score lists.
const s = (p: number, label: boolean) => ({ p, label });

describe('learning-curve figures', () => {
  const ranked = [s(0.9, true), s(0.8, true), s(0.7, false), s(0.6, true), s(0.2, false), s(0.1, false)];

  it('ROC AUC: the share of (positive, negative) pairs ordered right, ties half', () => {
    expect(rocAuc(ranked)).toBeCloseTo(8 / 9, 10);
    expect(rocAuc([s(0.5, true), s(0.5, false)])).toBe(0.5);
    expect(rocAuc([s(1, true), s(0, false)])).toBe(1);
    expect(() => rocAuc([s(1, true)])).toThrow(/both classes/);
  });

  it('best F1 over every cut of the ranking', () => {
    // Top 4 hold the 3 positives: F1 = 6 / (4 + 3).
    expect(bestF1(ranked)).toBeCloseTo(6 / 7, 10);
    expect(bestF1([s(0.9, false), s(0.1, true)])).toBeCloseTo(2 / 3, 10);
  });

  it('recall at a precision floor: the deepest cut that keeps it', () => {
    expect(recallAtPrecision(ranked, 1)).toBeCloseTo(2 / 3, 10);
    expect(recallAtPrecision(ranked, 0.75)).toBe(1);
    expect(recallAtPrecision([s(0.9, false), s(0.1, true)], 0.9)).toBe(0);
  });

  it('folds: every key in one of K groups, the same one each time; one fold is the 15 % dev part', () => {
    const keys = Array.from({ length: 2000 }, (_, i) => `credsweeper:tests/samples/file-${i}`);
    const five = keys.map((k) => foldOf(k, 5));
    expect(keys.map((k) => foldOf(k, 5))).toEqual(five);
    for (let f = 0; f < 5; f++) {
      const share = five.filter((x) => x === f).length / keys.length;
      expect(share).toBeGreaterThan(0.15);
      expect(share).toBeLessThan(0.25);
    }
    const one = keys.map((k) => foldOf(k, 1));
    expect(new Set(one)).toEqual(new Set([0, -1]));
    const dev = one.filter((x) => x === 0).length / keys.length;
    expect(dev).toBeGreaterThan(0.11);
    expect(dev).toBeLessThan(0.19);
  });
});
