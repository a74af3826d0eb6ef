import { startRagTarget } from './rag-target';
import { fuzzSuite } from './fuzz-suite';

fuzzSuite('rag', startRagTarget);
