/**
 * What the knowledge-base suites share: the real rag app with its knowledge base (knowledge.helpers.ts: FerretDB,
 * LanceDB in a temp folder, the real agent and OCR services on loopback ports; the graph service down), a local
 * OpenAI-protocol embeddings stand-in and two of Alice's RAG configurations. (Calls of the routes: knowledge-calls.ts.)
 *
 * A suite calls `useKnowledgeApp()` once at its top: its beforeAll starts the app and fills the bindings exported
 * below (read them inside tests and hooks), its afterAll stops it. Each suite gets an app (and database) of its own.
 */
import { startFakeEmbeddings, type FakeEmbeddings } from '@platform/testing';

import { ALICE, startKnowledgeApp, type KnowledgeTestApp } from './knowledge.helpers';

const CONCEPTS = {
  vehicle: ['automobile', 'car', 'sedan', 'vehicle', 'garage'],
  food: ['bread', 'bakery', 'pastry', 'croissant'],
  sea: ['sailing', 'yacht', 'harbour', 'boat'],
};

export let k: KnowledgeTestApp;
export let embeddings: FakeEmbeddings;
/** Alice's configuration with an embedding credential (hybrid search) and one without (BM25 only). */
export let hybridRag: string;
export let lexicalRag: string;

/** Starts the app before the suite's tests and stops it after them. */
export function useKnowledgeApp(): void {
  beforeAll(async () => {
    embeddings = await startFakeEmbeddings(CONCEPTS);
    k = await startKnowledgeApp({ allowHosts: [`127.0.0.1:${embeddings.port}`] });
    const credential = await k.credential(ALICE, embeddings.baseUrl);
    hybridRag = await k.createRag(k.alice, { embedding_credential_id: credential });
    lexicalRag = await k.createRag(k.alice);
  }, 60_000);
  afterAll(async () => {
    await k?.close();
    await embeddings?.close();
  });
}
