export const PACKAGE_NAME = "@penguin/protocol";
