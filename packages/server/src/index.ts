export const PACKAGE_NAME = "@penguin/server";
