import type { ColumnType, Selectable } from "kysely";

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/** A person's conversation with a research bot. */
export interface ChatConversationsTable {
  id: string;
  bot_id: string;
  user_sub: string;
  title: string;
  tokens_used: ColumnType<string, number | undefined, number>;
  message_count: ColumnType<number, number | undefined, number>;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The answer in flight holding what is left of the budget; null when none does. */
  answer_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** When that hold lapses even if the answer never ends (its process died). */
  answer_until: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** A tool call an assistant turn asked for, replayed to the model with the history. */
export interface StoredToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A tool result an answer cites. */
export interface StoredCitation {
  call_id: string;
  tool: string;
}

/** One message of a conversation: the person's, the bot's, or a tool's answer. */
export interface ChatMessagesTable {
  conversation_id: string;
  seq: number;
  role: "user" | "assistant" | "tool";
  text: string;
  tool: ColumnType<string, string | undefined, string>;
  call_id: ColumnType<string, string | undefined, string>;
  tool_calls: ColumnType<StoredToolCall[], string | undefined, string>;
  citations: ColumnType<StoredCitation[], string | undefined, string>;
  created_at: Timestamp;
}

export type ConversationRow = Selectable<ChatConversationsTable>;
export type ChatMessageRow = Selectable<ChatMessagesTable>;
/** A message to append; the repository numbers it. */
export interface NewChatMessage {
  role: ChatMessagesTable["role"];
  text: string;
  tool?: string;
  call_id?: string;
  tool_calls?: StoredToolCall[];
  citations?: StoredCitation[];
}
