import { fuzzSuite } from './fuzz-suite';
import { startRaiTarget } from './rai-target';

fuzzSuite('rai', startRaiTarget);
