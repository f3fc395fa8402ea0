/** The official A2A SDK client as the tests use it: with an API key, and small readers of a task. */
import { ClientFactory, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { Role, type Message, type SendMessageRequest, type Task } from '@a2a-js/sdk';

export function textOfTask(task: Task): string {
  return task.artifacts.flatMap((a) => a.parts).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
}

export function sourcesOfTask(task: Task): Array<{ id: string; title: string }> {
  const data = task.artifacts.flatMap((a) => a.parts).find((p) => p.content?.$case === 'data');
  return data?.content?.$case === 'data' ? data.content.value.sources : [];
}

export function userMessage(text: string, extra: Partial<Message> = {}): SendMessageRequest {
  return {
    tenant: '',
    message: { messageId: `m-${Math.random().toString(36).slice(2)}`, contextId: '', taskId: '', role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }], metadata: undefined, extensions: [], referenceTaskIds: [], ...extra },
    configuration: undefined,
    metadata: undefined,
  };
}

/** A fetch that sends the API key with every request (what an agent's own client does). */
export function keyedFetch(key: string): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('Authorization', `Bearer ${key}`);
    return fetch(input, { ...init, headers });
  };
}

export async function a2aClient(url: string, key: string): Promise<Client> {
  const fetchImpl = keyedFetch(key);
  const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })] } as never);
  return factory.createFromUrl(url);
}
