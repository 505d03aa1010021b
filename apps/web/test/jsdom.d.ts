// jsdom ships no types, and @types/jsdom would put the DOM's globals into every package's
// compilation (vitest's types reach it): the tests declare the little they use.
declare module "jsdom" {
  export class JSDOM {
    constructor(html?: string);
    readonly window: Window & typeof globalThis;
  }
}
