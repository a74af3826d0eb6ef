import { fuzzSuite } from './fuzz-suite';
import { startVoiceTarget } from './voice-target';

fuzzSuite('voice', startVoiceTarget);
