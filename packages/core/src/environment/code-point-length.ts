/**
 * A string's length as JSON Schema counts it for `minLength` and `maxLength`: in Unicode code
 * points, so that a surrogate pair (an emoji) is one character. A lone surrogate counts as one.
 * The precompiled argument validators use it in place of ajv's own helper, so that validating a
 * built-in tool's arguments loads nothing from node_modules.
 */
export function codePointLength(text: string): number {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const pairs = unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length;
    if (pairs && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    length++;
  }
  return length;
}
