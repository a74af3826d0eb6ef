import Joi from 'joi';

import type { Page } from './paging.schemas.types';

/** Joi keys for the API's list paging, `skip` ≥ 0 (default 0) and `limit` 1–100 (default 50); spread them into a query schema. */
export const pageQuery = {
  skip: Joi.number().integer().min(0).max(1_000_000_000).default(0).description('Items to skip'),
  limit: Joi.number().integer().min(1).max(100).default(50).description('Items to return at most'),
};

/** A list route's query when paging is all it takes. */
export const pageSchema = Joi.object<Page>(pageQuery).meta({ className: 'Page' });
