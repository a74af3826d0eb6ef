/** OpenAI's error object: what OpenAI-protocol clients read from an error answer to say what went wrong. */
export interface OpenAiError {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

interface FieldError {
  loc?: unknown[];
  msg?: string;
  type?: string;
}

/** OpenAI's error type for a status (its API reference's error codes). */
function typeOf(status: number): string {
  if (status === 401 || status === 403) return 'authentication_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  return status >= 500 ? 'server_error' : 'invalid_request_error';
}

/**
 * The `error` object an error answer of the chat-completions route carries beside the contract's `detail`: the
 * `openai` clients build their exception's message from it (without it: "422 status code (no body)"). A validation
 * error names its first field (`param`) and the check it failed (`code`).
 */
export function openAiError({ status, detail }: { status: number; detail: unknown }): OpenAiError {
  if (Array.isArray(detail)) {
    const first = (detail[0] ?? {}) as FieldError;
    const param = (first.loc ?? []).slice(1).join('.') || null;
    const message = `${first.msg ?? 'invalid request'}${param ? ` (${param})` : ''}`;
    return { message, type: typeOf(status), param, code: first.type ?? null };
  }
  return {
    message: typeof detail === 'string' ? detail : JSON.stringify(detail),
    type: typeOf(status),
    param: null,
    code: null,
  };
}
