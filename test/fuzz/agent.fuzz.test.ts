import { startAgentTarget } from './agent-target';
import { fuzzSuite } from './fuzz-suite';

fuzzSuite('agent', startAgentTarget);
