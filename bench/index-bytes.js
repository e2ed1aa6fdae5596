// @ts-check
'use strict';
/**
 * `node bench/index-bytes.js` (after a build): the heap an agent's search index holds, measured,
 * against the estimate agent-memory's cache of indexes is bounded by (`MemoryIndex.bytes`,
 * `MEMORY_INDEX_CACHE_MAX_MB`). One fresh process per shape of item, 20,000 items each (2,000 of the longest), with
 * 384-dimension vectors: the heap and array buffers after a full collection, before and after.
 * Shapes: the soak's memory adds (a short sentence), its chats' episodic memories (about 1.9 KB
 * of text), and the longest content an add accepts (20,000 characters of varied words, with a
 * few fields of metadata).
 */
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const ITEMS = Number(process.env.ITEMS ?? 20_000);
/** The longest items are measured on a tenth as many: 20,000 of them outgrow a 4 GB heap. */
/** @type {Record<string, number>} */
const COUNT = { short: ITEMS, chat: ITEMS, longest: ITEMS / 10 };
const SHAPES = ['short', 'chat', 'longest'];

const WORDS =
  'refund shipping invoice order delay customer account password billing plan upgrade support region backup'.split(' ');

/**
 * @param {number} n
 * @param {number} words
 * @param {number} vocabulary distinct words to draw from (beyond WORDS, made-up ones)
 */
function text(n, words, vocabulary) {
  const out = [];
  for (let i = 0; i < words; i++) {
    const k = (n * 7919 + i * 104_729) % vocabulary;
    out.push(k < WORDS.length ? WORDS[k] : `w${k.toString(36)}`);
  }
  return out.join(' ');
}

/** @param {string} shape @param {number} n */
function item(shape, n) {
  const vector = new Float32Array(384);
  for (let j = 0; j < 384; j++) vector[j] = Math.sin(n + j);
  const base = {
    id: `mem_${n.toString(16).padStart(24, '0')}`,
    agentId: 'agt_1',
    createdAt: new Date(1e12 + n),
    vector,
  };
  if (shape === 'short') return { ...base, memoryType: 'semantic', content: `${text(n, 8, 14)} #${n}`, metadata: {} };
  if (shape === 'chat')
    return {
      ...base,
      memoryType: 'episodic',
      content: `User: ${text(n, 9, 14)} #${n}\nAssistant: ${text(n + 1, 260, 400)}`,
      metadata: {},
    };
  return {
    ...base,
    memoryType: 'semantic',
    content: text(n, 2_600, 50_000).slice(0, 20_000),
    metadata: { source: 'import', page: n, tags: ['bench', 'longest'] },
  };
}

function child() {
  const shape = process.argv[2];
  const { MemoryIndex } = require(path.join(ROOT, 'services', 'agent-memory', 'dist', 'search', 'memory-index.js'));
  const gc = /** @type {() => void} */ (global.gc);
  gc();
  const before = process.memoryUsage();
  const index = new MemoryIndex(1, 'bench');
  // Made one at a time: what is left after the collection is what the index holds (the vectors
  // are copied into its columns, the arrays they came in are garbage).
  for (let n = 0; n < COUNT[shape]; n++) index.upsert(item(shape, n));
  gc();
  const after = process.memoryUsage();
  const measured = after.heapUsed - before.heapUsed + (after.arrayBuffers - before.arrayBuffers);
  console.log(JSON.stringify({ shape, items: index.size, measured, estimated: index.bytes }));
}

function main() {
  console.log('KB an item, measured (heap and array buffers) and estimated');
  for (const shape of SHAPES) {
    const run = spawnSync(process.execPath, ['--expose-gc', __filename, shape], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`${shape}: ${run.stderr}`);
    const { items, measured, estimated } = JSON.parse(run.stdout);
    const kb = (/** @type {number} */ bytes) => (bytes / items / 1024).toFixed(2);
    console.log(
      `${shape.padEnd(8)} ${items} items: measured ${kb(measured)} KB, estimated ${kb(estimated)} KB (${(estimated / measured).toFixed(2)}x)`,
    );
  }
}

if (process.argv[2]) child();
else main();
