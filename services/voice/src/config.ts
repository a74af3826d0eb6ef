import { commonEnv, Joi, type CommonConfig } from '@platform/config';

/** Every environment variable the voice service reads. */
export const configSchema: Joi.ObjectSchema<VoiceServiceConfig> = Joi.object<VoiceServiceConfig>({
  PORT: Joi.number().port().default(3005).description('HTTP port.'),
  MONGODB_DB: Joi.string().default('voice').description("The voice service's own database (transcripts)."),
  ...commonEnv,
  // Larger than the common 1 MiB: a whole call's session report and chat history arrive in one ingest body.
  JSON_BODY_LIMIT: Joi.string().default('10mb').description('Largest JSON body (a transcript ingest); larger → 413.'),
});

export interface VoiceServiceConfig extends CommonConfig {
  PORT: number;
  MONGODB_DB: string;
}
