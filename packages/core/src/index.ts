export const PACKAGE_NAME = "@penguin/core";
