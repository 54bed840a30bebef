import { it } from 'vitest';
import { render } from 'ink';
import { useInput, Text } from 'ink';
import { useState } from 'react';
import { renderTui, KEY } from './helpers/render-tui.js';
function A() { const [s, set] = useState(''); useInput((i, k) => set(JSON.stringify({ i, ctrl: k.ctrl }))); return <Text>{`got ${s}`}</Text>; }
it('ctrl', async () => {
  const t = renderTui(<A />, { columns: 80, rows: 10 });
  await t.press(KEY.ctrlD); console.info(t.lastFrame());
  await t.press('\x0c'); console.info(t.lastFrame());
  t.unmount();
});
