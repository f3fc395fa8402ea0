/** A conversation's handoff state, on its own so the chat and conversation contracts can carry it (handoff.ts has the rest). */
import { z } from 'zod';

export const HANDOFF_STATES = ['bot', 'waiting', 'open', 'resolved'] as const;
export const HandoffStateSchema = z.enum(HANDOFF_STATES).meta({ id: 'HandoffState', description: 'bot, waiting (a person was asked for), open (a member took it) or resolved.' });
export type HandoffState = z.infer<typeof HandoffStateSchema>;
