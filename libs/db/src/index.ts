export { mongoose } from './connect';
export type { Connection, InferSchemaType, Model, UpdateQuery } from 'mongoose';
export {
  connectMongo,
  expireNow,
  modelFor,
  pingMongo,
  prepareLookups,
  readPreferenceOf,
  refreshStatistics,
  syncIndexes,
  writeConcernOf,
  type MongoOptions,
  type ReadPreferenceMode,
  type StoredDoc,
} from './connect';
export {
  createSequence,
  fromJsonText,
  iso,
  isObjectIdHex,
  newObjectId,
  ownerFilter,
  ownerKey,
  toJsonText,
  type Owner,
} from './values';
export { isDuplicateKeyError } from './duplicate-key';
export { BULK_MAX } from './ferretdb/adapter';
export { QUERY_LOG_ENV, watchServedQueries, type ServedQuery } from './query-log';
export {
  createGroupCommit,
  insertEach,
  perConnection,
  writeErrorsOf,
  type GroupCommit,
  type GroupCommitOptions,
  type InsertEachOptions,
} from './group-commit';
export { isRetryableWriteError, MAJORITY, retryWriteOnce } from './retry-write';
export {
  afterKey,
  findKeysetPage,
  findPage,
  listEqualities,
  NEWEST_FIRST,
  type ListFilter,
  type Page,
  type SortKeys,
} from './listing';
