import { startRaiTarget } from './rai-target';
import { fuzzSuite } from './fuzz-suite';

fuzzSuite('rai', startRaiTarget);
