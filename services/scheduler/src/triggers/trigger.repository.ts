import { isObjectIdHex, type Connection } from '@platform/db';
import { webhookModel, type WebhookDoc } from '../webhooks/webhook.model';

/** What the trigger needs of a webhook, looked up by id alone (the trigger carries no API key). */
export interface TriggerTarget {
  id: string;
  user_id: string;
  org_id: string;
  agent_id: string;
  is_active: boolean;
  secret_key_sealed: string;
  previous_secret_key_sealed: string | null;
  previous_secret_expires_at: Date | null;
}

/** The trigger's reads and writes of the webhooks collection. */
export function createTriggerRepository(conn: Connection) {
  const Webhook = webhookModel(conn);
  return {
    async find(id: string): Promise<TriggerTarget | null> {
      if (!isObjectIdHex(id)) return null;
      const d = await Webhook.findById(id).lean<WebhookDoc>();
      if (!d) return null;
      return {
        id,
        user_id: d.user_id,
        org_id: d.org_id,
        agent_id: d.agent_id,
        is_active: d.is_active,
        secret_key_sealed: d.secret_key_sealed,
        previous_secret_key_sealed: d.previous_secret_key_sealed ?? null,
        previous_secret_expires_at: d.previous_secret_expires_at ?? null,
      };
    },
  };
}

export type TriggerRepository = ReturnType<typeof createTriggerRepository>;
