import { Document } from "yaml";

/**
 * The text of a YAML file Penguin writes for people to read and edit: a comment at the top, then
 * `value` with every shared sub-object (a tool's call-description property, say) written out in
 * full rather than as a YAML alias, and no line folded.
 */
export function yamlFileText(value: unknown, header: readonly string[]): string {
  const document = new Document(value, { aliasDuplicateObjects: false });
  document.commentBefore = header.map((line) => ` ${line}`).join("\n");
  return document.toString({ lineWidth: 0 });
}
