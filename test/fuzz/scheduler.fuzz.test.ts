import { fuzzSuite } from './fuzz-suite';
import { startSchedulerTarget } from './scheduler-target';

fuzzSuite('scheduler', startSchedulerTarget);
