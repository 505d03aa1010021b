export const PACKAGE_NAME = "@penguin/state";
