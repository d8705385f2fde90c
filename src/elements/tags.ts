/** Tag names live here only: a hard-coded tag elsewhere is how libraries end up waiting on the wrong element. */
export const SESSION_TAG = 'pedelec-session';
export const TOOL_TAG = 'pedelec-tool';
export const ARG_TAG = 'pedelec-arg';
export const GUIDANCE_TAG = 'pedelec-guidance';
export const CHAT_TAG = 'pedelec-chat';
