import { deflateSync } from "node:zlib";

// Small real files for the rich read_file tests, written from bytes: a valid PNG, and PDFs laid
// out by hand (objects, a cross-reference table with exact offsets, a trailer), so every test
// file is made by the test itself.

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(data: Buffer): number {
  let c = 0xffffffff;
  for (const byte of data) c = (CRC_TABLE[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** A valid RGB PNG of `width` x `height` pixels, every pixel the same colour. */
export function tinyPng(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0x7f)]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", deflateSync(pixels)),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

/** A PDF from its object bodies (object 1 is the catalog), with an exact cross-reference table. */
function layOutPdf(objects: string[], trailerExtra = ""): Buffer {
  let out = "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n";
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(Buffer.byteLength(out, "latin1"));
    out += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, "latin1");
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${trailerExtra} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}

const escapePdfString = (text: string) => text.replace(/[\\()]/g, (char) => `\\${char}`);

/** Objects of a document whose pages draw the given content streams (objects 1-3 are fixed). */
function pagedObjects(contents: string[]): string[] {
  const objects = [
    "", // 1: catalog, below
    "", // 2: page tree, below
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  const kids: number[] = [];
  for (const content of contents) {
    objects.push(`<< /Length ${Buffer.byteLength(content, "latin1")} >>\nstream\n${content}\nendstream`);
    const contentRef = objects.length;
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${contentRef} 0 R >>`,
    );
    kids.push(objects.length);
  }
  objects[0] = "<< /Type /Catalog /Pages 2 0 R >>";
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(" ")}] /Count ${kids.length} >>`;
  return objects;
}

/** A content stream that writes each line of text below the previous one. */
function textContent(lines: readonly string[]): string {
  const shown = lines.map((line) => `(${escapePdfString(line)}) Tj T*`);
  return ["BT", "/F1 12 Tf", "16 TL", "72 720 Td", ...shown, "ET"].join("\n");
}

/** A PDF with one page per entry, each page showing its lines of text. */
export function textPdf(pages: readonly (readonly string[])[]): Buffer {
  return layOutPdf(pagedObjects(pages.map(textContent)));
}

/** A PDF whose pages only paint (a grey box and a 2x2 inline image): no text layer at all. */
export function imageOnlyPdf(pageCount: number): Buffer {
  const paint =
    "0.5 g\n100 100 200 200 re f\nq 50 0 0 50 300 500 cm\nBI /W 2 /H 2 /CS /G /BPC 8 ID \x00\xff\xff\x00\nEI Q";
  return layOutPdf(pagedObjects(Array.from({ length: pageCount }, () => paint)));
}

/**
 * A PDF encrypted with the standard security handler whose user password is not empty: the
 * hashes in /O and /U match no empty password, so a reader has to ask for one.
 */
export function passwordPdf(): Buffer {
  const objects = pagedObjects([textContent(["secret text"])]);
  objects.push(
    `<< /Filter /Standard /V 1 /R 2 /Length 40 /P -4 /O <${"5a".repeat(32)}> /U <${"c3".repeat(32)}> >>`,
  );
  const id = "0123456789abcdef0123456789abcdef";
  return layOutPdf(objects, ` /Encrypt ${objects.length} 0 R /ID [<${id}> <${id}>]`);
}
