/** Agent ids are decimal integers below 2^53. */
const AGENT_ID = /^[1-9][0-9]{0,15}$/;

/** True for a string in the agent id format; anything else names no agent. */
export const isAgentId = (id: string): boolean => AGENT_ID.test(id) && Number(id) <= Number.MAX_SAFE_INTEGER;
