import { fuzzSuite } from './fuzz-suite';
import { startOcrTarget } from './ocr-target';

fuzzSuite('ocr', startOcrTarget);
