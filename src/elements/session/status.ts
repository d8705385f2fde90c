import type { PedelecSessionStatus } from '../../core/index.js';

/**
 * A `<pedelec-session>`'s status: `inactive` (no session, none pending) → `starting` (creating or
 * resuming, including the extension's approval popup) → the core statuses.
 */
export type PedelecElementStatus = 'inactive' | 'starting' | PedelecSessionStatus;
