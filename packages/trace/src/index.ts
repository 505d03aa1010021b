export const PACKAGE_NAME = "@penguin/trace";
