import { NotFoundError } from '@platform/errors';

/**
 * A transcript the caller's organization does not have (none, or another organization's: the same answer). Its
 * body is the spec's Transcript error, `{error, details}`, which the transcript routes send (contract §6); anywhere
 * else it is an ordinary 404.
 */
export class TranscriptNotFoundError extends NotFoundError {
  readonly body: { error: string; details: string };
  constructor(sessionId: string) {
    super('Transcript');
    this.body = {
      error: 'Transcript not found.',
      details: `No transcript with sessionId ${sessionId} in your organization.`,
    };
  }
}
