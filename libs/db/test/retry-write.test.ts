import { isRetryableWriteError, mongoose, readPreferenceOf, retryWriteOnce, writeConcernOf } from '@platform/db';

const { mongo } = mongoose;

describe('isRetryableWriteError', () => {
  test('a lost connection is retryable, also when a bulk write wraps it', () => {
    expect(isRetryableWriteError(new mongo.MongoNetworkError('connection closed'))).toBe(true);
    expect(isRetryableWriteError(new mongo.MongoNetworkTimeoutError('socket timed out'))).toBe(true);
    const bulk = new mongo.MongoBulkWriteError(new mongo.MongoNetworkError('connection 5 closed'), {} as never);
    expect(isRetryableWriteError(bulk)).toBe(true);
  });

  test('election codes and labels are retryable, as errors and as write concern errors', () => {
    expect(isRetryableWriteError(new mongo.MongoServerError({ code: 10107, errmsg: 'not primary' }))).toBe(true);
    expect(isRetryableWriteError(new mongo.MongoServerError({ code: 189, errmsg: 'stepped down' }))).toBe(true);
    const labelled = new mongo.MongoServerError({ code: 1, errmsg: 'x', errorLabels: ['RetryableWriteError'] });
    expect(isRetryableWriteError(labelled)).toBe(true);
    const wce = new mongo.MongoWriteConcernError({
      writeConcernError: { code: 11602, errmsg: 'interrupted' },
    } as never);
    expect(isRetryableWriteError(wce)).toBe(true);
  });

  test('what the server refused on its own terms, or a server never found, is not', () => {
    expect(isRetryableWriteError(new mongo.MongoServerError({ code: 11000, errmsg: 'E11000 duplicate key' }))).toBe(
      false,
    );
    expect(isRetryableWriteError(new mongoose.Error.ValidationError())).toBe(false);
    // A majority that did not answer in time: the write is applied on the primary; sending it again would not help.
    const timeout = new mongo.MongoWriteConcernError({ writeConcernError: { code: 64, errmsg: 'waiting' } } as never);
    expect(isRetryableWriteError(timeout)).toBe(false);
    expect(isRetryableWriteError(new mongo.MongoServerSelectionError('no primary', {} as never))).toBe(false);
    expect(isRetryableWriteError(new Error('boom'))).toBe(false);
    expect(isRetryableWriteError(null)).toBe(false);
    expect(isRetryableWriteError('closed')).toBe(false);
  });
});

describe('retryWriteOnce', () => {
  test('a write that fails with a retryable error is sent once more, told it is the retry', async () => {
    const calls: boolean[] = [];
    const result = await retryWriteOnce(async (retry) => {
      calls.push(retry);
      if (!retry) throw new mongo.MongoNetworkError('connection closed');
      return 'stored';
    });
    expect(result).toBe('stored');
    expect(calls).toEqual([false, true]);
  });

  test('only once: a retry that fails too fails the write', async () => {
    let calls = 0;
    const write = retryWriteOnce(async () => {
      calls += 1;
      throw new mongo.MongoNetworkError(`closed ${calls}`);
    });
    await expect(write).rejects.toThrow('closed 2');
    expect(calls).toBe(2);
  });

  test('a duplicate key or a validation error on the first try is not retried', async () => {
    for (const err of [
      new mongo.MongoServerError({ code: 11000, errmsg: 'E11000 duplicate key' }),
      new mongoose.Error.ValidationError(),
    ]) {
      let calls = 0;
      await expect(
        retryWriteOnce(async () => {
          calls += 1;
          throw err;
        }),
      ).rejects.toBe(err);
      expect(calls).toBe(1);
    }
  });
});

describe('connection options', () => {
  test('write concern: majority by default, or a member count', () => {
    expect(writeConcernOf(undefined)).toBe('majority');
    expect(writeConcernOf('majority')).toBe('majority');
    expect(writeConcernOf('1')).toBe(1);
    expect(writeConcernOf(2)).toBe(2);
    expect(() => writeConcernOf('all')).toThrow('write concern');
  });

  test('read preference: primary by default, one of the modes', () => {
    expect(readPreferenceOf(undefined)).toBe('primary');
    expect(readPreferenceOf('nearest')).toBe('nearest');
    expect(() => readPreferenceOf('secondaries')).toThrow('read preference');
  });
});
