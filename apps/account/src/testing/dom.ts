/** Clears every cookie and local storage entry of the jsdom document. */
export function clearBrowserState(): void {
  for (const c of document.cookie.split(';')) {
    const name = c.split('=')[0]?.trim();
    if (name) document.cookie = `${name}=; Path=/; Max-Age=0`;
  }
  localStorage.clear();
}

export function flowUi(id: string, kind: string, nodes: unknown[] = [], messages: unknown[] = []) {
  return {
    action: `http://localhost:4433/self-service/${kind}?flow=${id}`,
    method: 'POST',
    messages,
    nodes: [
      {
        type: 'input',
        group: 'default',
        attributes: { name: 'csrf_token', type: 'hidden', value: 'csrf-1', node_type: 'input' },
        messages: [],
        meta: {},
      },
      ...nodes,
    ],
  };
}
