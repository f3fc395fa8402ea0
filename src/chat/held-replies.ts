/**
 * Replies the assistant does not give because a person has (or is asked for) the conversation,
 * and the rule that asks for a person after questions the knowledge had no answer to.
 */
import type { Logger } from '@nestjs/common';
import type { ConversationsService, Turn } from '../conversations/conversations.service';
import type { ReplyProducer } from '../conversations/reply-streams';
import { handoffNotice } from '../handoff/handoff-phrases';
import type { HandoffService } from '../handoff/handoff.service';
import type { ReplyData } from '../shared/contracts/chat';
import type { HandoffInfo } from '../shared/contracts/handoff';
import type { ChatRequest } from './chat-request';
import type { UsageChannel } from '../analytics/usage-event.entity';

/** A visitor message held for a person. */
export interface HeldMessage {
  turn: Turn;
  request: ChatRequest;
  channel: UsageChannel;
  producer: ReplyProducer;
  /** performance.now() when the visitor asked. */
  started: number;
  /** The conversation's handoff state. */
  handoff: HandoffInfo;
  /** The visitor asked for a person in this very message (the question is already stored; they are told a person will join). */
  asked?: boolean;
}

/**
 * A visitor message the assistant does not answer (a person has the conversation, or was just
 * asked for in words): the question is stored for the inbox and the reply ends at once with an
 * empty response (or, when the person was asked for now, what the visitor is told) and the
 * conversation's handoff state. No provider call, no usage event.
 */
export async function holdForPerson(conversations: ConversationsService, handoffs: HandoffService, held: HeldMessage): Promise<ReplyData> {
  const { turn, request, channel, producer, started, handoff, asked = false } = held;
  if (!asked) {
    await conversations.saveQuestionOnly(turn);
    handoffs.visitorMessageHeld(turn.conversationId, handoff);
  }
  const language = request.language.code;
  const response = !asked
    ? ''
    : handoff.state === 'open'
      ? handoffNotice(language, { kind: 'open' })
      : handoffNotice(language, { kind: 'waiting', position: handoff.queuePosition ?? 1, waitMinutes: Math.max(1, Math.round((handoff.expectedWaitSeconds ?? 180) / 60)) });
  const data: ReplyData = {
    response,
    executionTime: Math.round(performance.now() - started),
    confidence: 0,
    vertical: request.vertical,
    agentsInvolved: [],
    a2aCompliant: channel === 'a2a',
    optimization: { cacheHit: false, passages: 0, coalescedFrames: 0 },
    sources: [],
    replyId: producer.replyId,
    conversationId: turn.conversationId,
    handoff: handoff.state,
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0, provider: 'local', model: 'none' },
  };
  producer.end({ kind: 'done', data });
  return data;
}

/**
 * The rule: after this many questions in a row the knowledge had no answer to, a person is asked
 * for (the reply's data then carries the handoff state). A failure is logged, never the reply's.
 */
export async function applyUnansweredRule(handoffs: HandoffService, turn: Turn, data: ReplyData, logger: Logger): Promise<void> {
  try {
    const count = await handoffs.unansweredRule();
    if (count <= 0 || !(await handoffs.unansweredInARow(turn.conversationId, turn.replyId, count))) return;
    const handoff = await handoffs.requestForTurn({ ...turn, known: true }, 'unanswered');
    data.handoff = handoff.state;
  } catch (error) {
    logger.warn(`The unanswered-questions rule could not hand the conversation over: ${(error as Error).message}`);
  }
}
