// Reads JSON lines {"id", "text"} on standard input and writes, for each, a JSON line
// {"id", "code", "reliable", "languages"} with CLD2's verdict through the npm package
// cld (pinned in .ci/node): "code" is the top language's ISO 639-1 code as CLD2 names
// it ("un" when CLD2 finds none). extract/lang compares its own with it.
'use strict';
const path = require('path');
const readline = require('readline');
const cld = require(path.join(__dirname, 'node', 'node_modules', 'cld'));

async function main() {
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line.trim()) continue;
    const { id, text } = JSON.parse(line);
    let out = { id, code: 'un', reliable: false, languages: [] };
    try {
      const r = await cld.detect(text);
      out = {
        id,
        code: r.languages.length ? r.languages[0].code : 'un',
        reliable: r.reliable,
        languages: r.languages.map((l) => ({ code: l.code, percent: l.percent })),
      };
    } catch (e) {
      // cld rejects texts it cannot identify; that is the verdict "un".
    }
    process.stdout.write(JSON.stringify(out) + '\n');
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
