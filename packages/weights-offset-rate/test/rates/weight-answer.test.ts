import { answerWeights, completeAnswer } from '@load-aware/weights-offset-rate/internal';
import { tp } from '../fakes';

const table = (weights: Record<string, number>) => (topic: string, partition: number) =>
  weights[`${topic}:${String(partition)}`];

describe('answering getWeights()', () => {
  it('answers each distinct valid partition once, measured ones first in the order asked, then the filled ones', () => {
    const answer = answerWeights(
      [tp('a', 1), tp('a', 0), tp('a', 1), { topic: '', partition: 0 }, tp('b', 0), { topic: 'a', partition: -1 }],
      table({ 'a:0': 4, 'b:0': 2 }),
      'median',
    );
    expect(answer.asked).toEqual([tp('a', 1), tp('a', 0), tp('b', 0)]);
    expect(answer.weights).toEqual([
      { topic: 'a', partition: 0, weight: 4 },
      { topic: 'b', partition: 0, weight: 2 },
      { topic: 'a', partition: 1, weight: 3 },
    ]);
    expect(answer).toMatchObject({ measured: 2, filled: 1, unmeasured: [tp('a', 1)] });
  });

  it('completes an answer by asking only its unmeasured partitions again, keeping the weights it gave', () => {
    const asked: string[] = [];
    const first = answerWeights([tp('a', 0), tp('a', 1), tp('a', 2)], table({ 'a:1': 10 }), 'median');
    const weights: Record<string, number> = { 'a:0': 2, 'a:1': 99, 'a:2': 6 };
    const completed = completeAnswer(
      first,
      (topic, partition) => {
        asked.push(`${topic}:${String(partition)}`);
        return table(weights)(topic, partition);
      },
      'median',
    );
    expect(asked).toEqual(['a:0', 'a:2']);
    expect(completed.weights).toEqual([
      { topic: 'a', partition: 0, weight: 2 },
      { topic: 'a', partition: 1, weight: 10 },
      { topic: 'a', partition: 2, weight: 6 },
    ]);
    expect(completed).toMatchObject({ measured: 3, filled: 0, unmeasured: [] });
  });

  it('fills with the median of every measured weight once completed, and leaves an answer nothing was gained for as it is', () => {
    const first = answerWeights([tp('a', 0), tp('a', 1), tp('a', 2)], table({ 'a:0': 1 }), 'median');
    expect(first.weights.map((w) => w.weight)).toEqual([1, 1, 1]);
    const completed = completeAnswer(first, table({ 'a:1': 5, 'a:2': Number.NaN }), 'median');
    expect(completed.weights).toEqual([
      { topic: 'a', partition: 0, weight: 1 },
      { topic: 'a', partition: 1, weight: 5 },
      { topic: 'a', partition: 2, weight: 3 },
    ]);
    expect(completeAnswer(completed, table({}), 'median')).toBe(completed);
  });
});
