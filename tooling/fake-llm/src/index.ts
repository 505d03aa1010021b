export const PACKAGE_NAME = "@penguin/fake-llm";
