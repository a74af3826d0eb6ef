import { fuzzSuite } from './fuzz-suite';
import { startRagTarget } from './rag-target';

fuzzSuite('rag', startRagTarget);
