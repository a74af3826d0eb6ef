import Joi from 'joi';

/** `skip` ≥ 0 (default 0) and `limit` 1–100 (default 50), the contract's list paging. */
export interface Page {
  skip: number;
  limit: number;
}

/** Joi keys for the contract's paging; spread into a query schema. */
export const pageQuery = {
  skip: Joi.number().integer().min(0).max(1_000_000_000).default(0),
  limit: Joi.number().integer().min(1).max(100).default(50),
};
