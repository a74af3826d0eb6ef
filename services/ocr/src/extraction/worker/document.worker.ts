/**
 * Entry of the document process: the service forks it, sends it DocumentJobs over IPC one at a time and gets a
 * DocumentOutcome back for each. The service kills the process group when a document takes too long or too much
 * memory, so nothing a hostile file does here reaches the service's own process.
 */
import type { DocumentJob, DocumentOutcome } from './protocol';
import { readDocument } from './read-document';

// The service went away (crashed, killed): nobody waits for a document any more.
process.once('disconnect', () => process.exit(1));

// One document at a time (the service sends the next only after this one's answer); the process stays for the next.
process.on('message', (job: DocumentJob) => {
  readDocument(job).then(
    (outcome: DocumentOutcome) => process.send?.(outcome),
    (err: unknown) => {
      process.stderr.write(
        `document process failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      process.exit(70);
    },
  );
});
