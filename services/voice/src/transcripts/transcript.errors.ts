import { NotFoundError } from '@platform/errors';

import type { TranscriptError } from './transcript.schemas.types';

/**
 * A transcript the caller's organization does not have (none, or another organization's: the same answer). Its
 * body is the OpenAPI document's `TranscriptError`, `{error, details}`, which the transcript routes send; anywhere
 * else it is an ordinary 404.
 */
export class TranscriptNotFoundError extends NotFoundError {
  readonly body: TranscriptError;
  constructor(sessionId: string) {
    super('Transcript');
    this.body = {
      error: 'Transcript not found.',
      details: `No transcript with sessionId ${sessionId} in your organization.`,
    };
  }
}
