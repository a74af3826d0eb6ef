import { bestF1, recallAtPrecision, rocAuc } from '../scripts/learning-curve';

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
});
