// Skills: the catalog a session knows (use_skill loads from it; change_directory adds to it).

export { loadSessionSkills, type SessionSkills, SkillCatalog, type SkillsAdded } from "./catalog.js";
