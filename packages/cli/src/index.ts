export const PACKAGE_NAME = "@penguin/cli";
