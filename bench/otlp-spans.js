// @ts-check
'use strict';
/**
 * Counts the spans of one OTLP/HTTP trace export without decoding it: in protobuf (what the
 * services send, `application/x-protobuf`) by walking ExportTraceServiceRequest.resource_spans(1)
 * -> ResourceSpans.scope_spans(2) -> ScopeSpans.spans(2); in JSON by its "spanId" keys.
 */

/** @param {Buffer} buf @param {number} pos @returns {[number, number]} the value and the next position */
function varint(buf, pos) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = buf[pos++];
    if (byte === undefined) throw new Error('truncated protobuf');
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [value, pos];
    shift += 7;
  }
}

/**
 * Calls `onField(field, start, end)` for each length-delimited field of the message in
 * buf[start, end), skipping the others.
 * @param {Buffer} buf @param {number} start @param {number} end
 * @param {(field: number, start: number, end: number) => void} onField
 */
function lengthDelimited(buf, start, end, onField) {
  let pos = start;
  while (pos < end) {
    const [key, next] = varint(buf, pos);
    pos = next;
    const wire = key & 7;
    if (wire === 0) pos = varint(buf, pos)[1];
    else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else if (wire === 2) {
      const [length, from] = varint(buf, pos);
      onField(Math.floor(key / 8), from, from + length);
      pos = from + length;
    } else throw new Error(`unexpected protobuf wire type ${wire}`);
  }
}

/** @param {Buffer} body @param {string | undefined} contentType */
function countSpans(body, contentType) {
  if (!contentType?.includes('protobuf')) return body.toString('latin1').split('"spanId"').length - 1;
  let spans = 0;
  lengthDelimited(body, 0, body.length, (field, start, end) => {
    if (field !== 1) return;
    lengthDelimited(body, start, end, (field, start, end) => {
      if (field !== 2) return;
      lengthDelimited(body, start, end, (field) => {
        if (field === 2) spans += 1;
      });
    });
  });
  return spans;
}

module.exports = { countSpans };
