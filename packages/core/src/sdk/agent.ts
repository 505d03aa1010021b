import { stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import {
  emptyTokenCounts,
  type OmniMessage,
  type SessionMetaPayload,
  sessionMeta,
  type ToolSpec,
  toolListReady,
  userText,
} from "@penguin/protocol";
import {
  type Agent as AgentConfig,
  buildSystemPrompt,
  DEFAULT_AGENT_ID,
  ensureDefaultAgent,
  ensurePrivateDir,
  findModel,
  formatConfigErrors,
  loadAgent,
  loadProjectConfig,
  type ProjectConfig,
  readFileRichEnabled,
  resolveDataRoot,
  resolveMcpToolBudget,
  resolveToolLimits,
  resolveToolset,
  type SystemConfig,
  type SystemConfigInput,
  SystemConfigSchema,
  scratchpadDir,
  scratchpadRoot,
  secretValues,
  systemPromptTemplate,
  tracesDir,
  writeGuardEnabled,
} from "@penguin/state";
import {
  isValidSessionId,
  readSession,
  rebuildContext,
  TraceError,
  type TraceLocation,
  TraceWriter,
} from "@penguin/trace";
import { type SessionRule, SessionRules } from "../approval/session-rules.js";
import type { ModelPrices, SessionBudget } from "../engine/limits.js";
import { flattenTurn, turnAbortedText } from "../engine/markers.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../engine/retry.js";
import type { ConversationState } from "../engine/types.js";
import { Environment } from "../environment/environment.js";
import { SecretRedactor } from "../environment/redact.js";
import { HookRunner } from "../hooks/runner.js";
import { mcpSecretValues } from "../mcp/secrets.js";
import { McpToolset } from "../mcp/toolset.js";
import { createRecordingModel } from "../models/recorder.js";
import type { ModelAdapter, ThinkingLevel } from "../models/types.js";
import { ProcessManager } from "../processes/process-manager.js";
import { extendedToolFactories } from "../tools/extended/index.js";
import { createBuiltinTools, selectToolsForModel } from "../tools/registry.js";
import { SUBAGENT_TOOL_NAMES, type SubagentManager, subagentToolFactories } from "../tools/subagent/index.js";
import { checkAllowedTools } from "./allowed-tools.js";
import { ToolCallRedaction } from "./call-redaction.js";
import { configuredToolNames } from "./configured-tool-names.js";
import { type CustomToolRegistration, customTools } from "./custom-tools.js";
import { checkHookTools } from "./hook-tools.js";
import { builtinToolNames, knownTools } from "./known-tools.js";
import { type ModelConnectionSettings, type ResolvedModel, resolveModel } from "./model-choice.js";
import { Session } from "./session.js";
import { newSessionId } from "./session-id.js";
import { SetupError } from "./setup-error.js";
import { type ChildSessionOptions, createSubagentManager, subagentPointers } from "./subagents.js";
import { prepareSurroundings, type SessionSurroundings } from "./surroundings.js";
import { checkThinkingLevel } from "./thinking.js";
import { describeImageWith } from "./vision.js";

export interface AgentLogger {
  warn(message: string): void;
}

export interface CreateAgentOptions {
  /** The data root (default: `PENGUIN_HOME`, else `~/.penguin/data`). */
  dataRoot?: string;
  /** The agent whose `system_config.yaml` configures sessions (default: "default", created on demand). */
  agentId?: string;
  /** A configuration in code instead of the agent's file (nothing is read or written for it). */
  config?: SystemConfigInput;
  /** Tools registered in code; they run under the same contract, approval and trace as the built-ins. */
  tools?: CustomToolRegistration[];
  logger?: AgentLogger;
}

export interface CreateSessionOptions {
  /** The folder the agent works in (must exist). */
  workspaceDir: string;
  /**
   * "provider/model-id" (from the project config), "replay:FILE" (a cassette), or an adapter.
   * Default: the project config's `default_model`.
   */
  model?: string | ModelAdapter;
  /** How hard the model thinks (default: the agent's `model.thinking_level`); `run` may override it. */
  thinkingLevel?: ThinkingLevel;
  /**
   * Records every model request of the session to this cassette file (YAML, mode 0600, rewritten
   * after each request; secrets redacted), for replay with the model `replay:FILE`.
   */
  record?: string;
  /** Model requests per task (default: the agent's `max_turns`; -1 or absent: unlimited). */
  maxTurns?: number;
  budget?: SessionBudget;
  /** Values to redact from every tool output (besides the project's API keys). */
  secrets?: string[];
  /** Retry timing (tests make it fast); the default is 5 retries, 2 s doubling to 30 s. */
  retry?: Partial<RetryPolicy>;
  /** Prices when the project config has none for the model. */
  prices?: ModelPrices;
}

export interface ResumeSessionOptions {
  /** Another adapter for the recorded model (default: the one session_meta names). */
  model?: ModelAdapter;
  thinkingLevel?: ThinkingLevel;
  maxTurns?: number;
  budget?: SessionBudget;
  secrets?: string[];
  retry?: Partial<RetryPolicy>;
  prices?: ModelPrices;
}

/** An agent: its configuration and tools, from which sessions are made. */
export class Agent {
  constructor(
    readonly id: string,
    readonly dataRoot: string,
    readonly config: SystemConfig,
    private readonly project: ProjectConfig,
    private readonly extraTools: CustomToolRegistration[],
    private readonly logger: AgentLogger,
  ) {}

  /** The agent's model settings that every adapter it makes gets (the request timeout). */
  private get modelSettings(): ModelConnectionSettings {
    return { timeoutMs: this.config.model.timeoutMs };
  }

  private get location(): TraceLocation {
    return { tracesDir: tracesDir(this.dataRoot), scratchpadRoot: scratchpadRoot(this.dataRoot) };
  }

  /** Starts a session: its trace opens with session_meta and tool_list_ready. */
  async createSession(options: CreateSessionOptions): Promise<Session> {
    checkThinkingLevel(options.thinkingLevel, "createSession");
    const workspaceDir = await existingFolder(options.workspaceDir);
    const id = newSessionId();
    const model = options.model ?? this.project.default_model;
    if (model === undefined) {
      throw new SetupError(
        'no model given and the project config has no default_model: pass a model ("provider/model-id" or "replay:FILE") or set default_model',
        "model",
      );
    }
    const resolved = this.recording(resolveModel(model, this.project, this.modelSettings), options);
    refuseUnpricedCostBudget(options, resolved);
    return this.startSession(id, resolved, workspaceDir, options);
  }

  /** A new session's system prompt, trace and runtime; a child names its parent. */
  private async startSession(
    id: string,
    resolved: ResolvedModel,
    workspaceDir: string,
    options: CreateSessionOptions,
    parentSessionId?: string,
  ): Promise<Session> {
    const surroundings = await this.surroundings(workspaceDir);
    const systemPrompt = await buildSystemPrompt({
      template: systemPromptTemplate(this.config),
      cwd: workspaceDir,
      dataDir: this.dataRoot,
      agentId: this.id,
      sessionId: id,
      provider: resolved.adapter.info.provider,
      modelId: resolved.adapter.info.modelId,
      ...this.skillsForPrompt(surroundings),
      tools: this.offeredToolNames(),
    });
    const trace = TraceWriter.create(this.location, id);
    return this.assemble({
      id,
      resolved,
      workspaceDir,
      systemPrompt,
      trace,
      state: freshState(),
      rules: new SessionRules(),
      options,
      isNew: true,
      parentSessionId,
      surroundings,
    });
  }

  private readSessionRecords(sessionId: string): OmniMessage[] {
    if (!isValidSessionId(sessionId)) {
      throw new SetupError(`"${sessionId}" is not a session id (letters, digits, - and _ only)`, "session");
    }
    try {
      return readSession(this.location, sessionId).records;
    } catch (err) {
      if (err instanceof TraceError && err.code === "session_not_found") {
        throw new SetupError(
          `no session ${sessionId} in ${this.dataRoot} (penguin sessions list shows them)`,
          "session",
        );
      }
      throw err;
    }
  }

  /**
   * Resumes a session from its trace alone: the committed context, the carry-over of an
   * unfinished turn, token totals and session rules; the system prompt is reused byte for byte
   * from session_meta, and records go on into the same trace.
   */
  async resumeSession(sessionId: string, options: ResumeSessionOptions = {}): Promise<Session> {
    return this.resume(sessionId, options);
  }

  /**
   * A subagent session of `parentSessionId` (see sdk/subagents.ts): it shares the parent's model
   * unless `model` names another, and its trace says `source: "subagent"`.
   * @internal Called by the parent's subagent manager.
   */
  async createSubagentSession(
    parentSessionId: string,
    model: ResolvedModel | string,
    options: ChildSessionOptions,
  ): Promise<Session> {
    const workspaceDir = await existingFolder(options.workspaceDir);
    const id = newSessionId();
    const resolved =
      typeof model === "string" ? resolveModel(model, this.project, this.modelSettings) : model;
    return this.startSession(
      id,
      resolved,
      workspaceDir,
      { ...options, prices: resolved.prices },
      parentSessionId,
    );
  }

  /**
   * Reopens a subagent session from its trace (a follow-up after its parent was resumed); it
   * shares the parent's model when its trace names the same one.
   * @internal Called by the parent's subagent manager.
   */
  async resumeSubagentSession(
    sessionId: string,
    parentSessionId: string,
    parentModel: ResolvedModel,
    options: ChildSessionOptions,
  ): Promise<Session> {
    const meta = readSession(this.location, sessionId).records[0];
    const info = parentModel.adapter.info;
    const same =
      meta?.type === "session_meta" &&
      meta.payload.provider === info.provider &&
      meta.payload.model_id === info.modelId;
    const { workspaceDir: _recorded, ...rest } = options;
    const resumeOptions: ResumeSessionOptions = same
      ? { ...rest, model: parentModel.adapter, prices: parentModel.prices }
      : rest;
    return this.resume(sessionId, resumeOptions, parentSessionId);
  }

  /** Another agent of the same data root, with this agent's custom tools and logger. @internal */
  otherAgent(agentId: string): Promise<Agent> {
    return createAgent({ dataRoot: this.dataRoot, agentId, tools: this.extraTools, logger: this.logger });
  }

  private async resume(
    sessionId: string,
    options: ResumeSessionOptions,
    parentSessionId?: string,
  ): Promise<Session> {
    checkThinkingLevel(options.thinkingLevel, "resumeSession");
    const records = this.readSessionRecords(sessionId);
    const resume = rebuildContext(records);
    const { meta } = resume;
    const workspaceDir = await existingFolder(meta.workspace);
    const model =
      options.model ??
      (meta.provider === "replay" ? `replay:${meta.model_id}` : `${meta.provider}/${meta.model_id}`);
    const resolved = resolveModel(model, this.project, this.modelSettings);
    // An adapter given for the recorded model still gets that model's output cap.
    const entry = findModel(this.project, meta.provider, meta.model_id);
    if (resolved.maxTokens === undefined && entry?.max_tokens !== undefined)
      resolved.maxTokens = entry.max_tokens;
    if (parentSessionId === undefined) refuseUnpricedCostBudget(options, resolved);
    const state: ConversationState = {
      messages: resume.messages,
      sessionTokens: resume.tokens.session ?? emptyTokenCounts(),
      sessionCostUsd: resume.tokens.sessionCostUsd,
      turns: resume.turns,
      activeMs: 0,
      pendingNotes: [],
    };
    const carry = resume.carryOver;
    // A crash after the engine's own note (a retry that then ran tools, say) still needs one:
    // only a note recorded after the last request began hands that request back.
    if (carry.interruption === "request" && !carry.handedBack) {
      const notice = carry.notice ?? "The previous turn did not finish.";
      const note = turnAbortedText(notice, flattenTurn(carry.droppedMessages));
      state.pendingNotes.push(userText(note, { sender: "harness" }));
    }
    const rules = new SessionRules();
    for (const rule of grantedRules(records)) rules.add(rule);
    const surroundings = await this.surroundings(workspaceDir, records);
    const trace = TraceWriter.open(this.location, sessionId);
    return this.assemble({
      id: sessionId,
      resolved,
      workspaceDir,
      systemPrompt: meta.system_prompt,
      trace,
      state,
      rules,
      options,
      isNew: false,
      recordedTools: lastToolList(records),
      recordedMeta: latestSessionMeta(records),
      parentSessionId,
      surroundings,
      pointers: parentSessionId === undefined ? subagentPointers(records) : undefined,
    });
  }

  /** The session's current directory, skills and hooks (a resumed one's from its records). */
  private surroundings(workspaceDir: string, records?: readonly OmniMessage[]): Promise<SessionSurroundings> {
    return prepareSurroundings({
      agentId: this.id,
      dataRoot: this.dataRoot,
      config: this.config,
      tools: knownTools(
        this.config,
        this.extraTools.map((tool) => tool.name),
      ),
      workspaceDir,
      records,
      warn: (line) => this.logger.warn(line),
    });
  }

  /** The built-in and code-registered tools a session offers, after `allowed_tools`. */
  private offeredToolNames(): string[] {
    const allowed = this.config.allowed_tools;
    const names = [
      ...resolveToolset(this.config).map((tool) => tool.name),
      ...this.extraTools.map((tool) => tool.name),
    ];
    return allowed === undefined ? names : names.filter((name) => allowed.includes(name));
  }

  /**
   * "the system prompt lists the available skills by name and description": loaded with
   * use_skill when the session offers it, else read by path.
   */
  private skillsForPrompt(surroundings: SessionSurroundings) {
    const skills = surroundings.skills?.list() ?? [];
    if (skills.length === 0) return {};
    const allowed = this.config.allowed_tools;
    const hasUseSkill =
      resolveToolset(this.config).some((tool) => tool.name === "use_skill") &&
      (allowed === undefined || allowed.includes("use_skill"));
    return { skills, ...(hasUseSkill ? { skillTool: "use_skill" } : {}) };
  }

  /**
   * Values redacted from tool output and recordings: the project's keys, the configured secrets
   * and the MCP servers' env and header values.
   */
  private secretsOf(options: { secrets?: string[] }): string[] {
    return [
      ...secretValues(this.project, process.env, this.config.secrets ?? []),
      ...mcpSecretValues(this.config.tools.mcpServers),
      ...(options.secrets ?? []),
    ];
  }

  /** The session's model, wrapped by the recorder when `record` names a cassette (created now). */
  private recording(resolved: ResolvedModel, options: CreateSessionOptions): ResolvedModel {
    if (!options.record) return resolved;
    const secrets = this.secretsOf(options);
    return { ...resolved, adapter: createRecordingModel(resolved.adapter, options.record, { secrets }) };
  }

  private assemble(input: {
    id: string;
    resolved: ResolvedModel;
    workspaceDir: string;
    systemPrompt: string;
    trace: TraceWriter;
    state: ConversationState;
    rules: SessionRules;
    options: CreateSessionOptions | ResumeSessionOptions;
    isNew: boolean;
    recordedTools?: ToolSpec[];
    /** A resumed session's latest recorded session_meta. */
    recordedMeta?: OmniMessage<SessionMetaPayload>;
    /** Set for a subagent session: its parent. */
    parentSessionId?: string;
    /** A resumed parent's subagent pointers. */
    pointers?: ReturnType<typeof subagentPointers>;
    surroundings: SessionSurroundings;
  }): Session {
    const { id, resolved, options, trace } = input;
    const thinkingLevel = options.thinkingLevel ?? this.config.model.thinking_level;
    // The level of the task now running (a run may override the session's), for children it spawns.
    const taskThinking = { level: thinkingLevel };
    const secrets = this.secretsOf(options);
    const adapter = resolved.adapter;
    const scratchpad = scratchpadDir(this.dataRoot, id);
    // "One process manager, one id namespace, one cap": exec_command sessions and run_command
    // jobs share the cap and buffer size of `tools.limits.jobs`.
    const jobLimits = resolveToolLimits(this.config).jobs;
    const processes = new ProcessManager({
      maxSessions: jobLimits.maxJobs,
      unreadBufferChars: jobLimits.bufferChars,
    });
    const isSubagent = input.parentSessionId !== undefined;
    // "Depth is capped at 1: a subagent cannot spawn another subagent": a child gets no subagent tools.
    const definitions = selectToolsForModel(resolveToolset(this.config), adapter.info.vision).filter(
      (definition) => !isSubagent || !SUBAGENT_TOOL_NAMES.includes(definition.name),
    );
    const subagents: SubagentManager | undefined = isSubagent
      ? undefined
      : createSubagentManager({
          agent: this,
          sessionId: id,
          resolved,
          workspaceDir: input.workspaceDir,
          thinkingLevel: () => taskThinking.level,
          subagentBudget: this.config.subagent_budget,
          retry: options.retry,
          secrets: options.secrets,
          state: input.state,
          pointers: input.pointers,
        });
    const builtins = createBuiltinTools(definitions, {
      ...extendedToolFactories(resolveToolLimits(this.config), {
        readFileRich: readFileRichEnabled(this.config.tools),
      }),
      ...(subagents ? subagentToolFactories(subagents) : {}),
    });
    for (const name of builtins.unknown) {
      this.logger.warn(`agent ${this.id}: no tool named "${name}" exists; it is left out of the toolset`);
    }
    const tools = [
      ...builtins.tools,
      ...customTools(
        this.extraTools,
        builtins.tools.map((t) => t.name),
      ),
    ];
    const { directory, skills, hooks } = input.surroundings;
    // Always a runner: change_directory may add a directory's hooks (or report them ignored)
    // later; with no hooks, a call costs an empty loop.
    const hookRunner = new HookRunner(hooks, {
      sessionId: id,
      workspaceDir: input.workspaceDir,
      currentDir: () => directory.path,
      redact: (text) => new SecretRedactor(secrets).redact(text),
    });
    const environment = new Environment({
      directory,
      skills,
      hooks: hookRunner,
      allowedTools: this.config.allowed_tools,
      tools,
      sessionId: id,
      workspaceDir: input.workspaceDir,
      scratchpadDir: scratchpad,
      secrets,
      processes,
      modelHasVision: adapter.info.vision,
      describeImage:
        resolved.describeImage ??
        (adapter.info.vision
          ? undefined
          : describeImageWith(this.project, { timeoutMs: this.config.model.timeoutMs })),
      warn: (line) => this.logger.warn(line),
      writeGuard: writeGuardEnabled(this.config.tools),
    });
    const toolSpecs = environment.toolSpecs();
    // MCP servers connect when the first task starts (see Session), never here: creating a
    // session does not wait for them.
    const mcpServers = this.config.tools.mcpServers;
    const mcp =
      mcpServers.length > 0
        ? new McpToolset({
            servers: mcpServers,
            workspaceDir: input.workspaceDir,
            reservedNames: tools.map((tool) => tool.name),
            budget: resolveMcpToolBudget(this.config.tools),
            toolList: () => environment.toolSpecs(),
            allowedTools: this.config.allowed_tools,
            recordedTools: input.recordedTools,
            redact: (text) => new SecretRedactor(secrets).redact(text),
            warn: (line) => this.logger.warn(`agent ${this.id}: ${line}`),
            configuredNames: () => configuredToolNames(this.config.allowed_tools, hooks),
          })
        : undefined;
    // A resumed session's recorded list ends with the MCP tools, which come back after connecting.
    const recordedOwnTools = input.recordedTools?.filter((tool) => !mcp?.ownsToolName(tool.name));
    const meta =
      input.recordedMeta ??
      sessionMeta({
        session_id: id,
        provider: adapter.info.provider,
        model_id: adapter.info.modelId,
        ...(resolved.contextWindow ? { model_context_window: resolved.contextWindow } : {}),
        system_prompt: input.systemPrompt,
        workspace: input.workspaceDir,
        agent_id: this.id,
        ...(input.parentSessionId !== undefined
          ? { source: "subagent" as const, parent_session_id: input.parentSessionId }
          : {}),
      });
    const header: OmniMessage[] = [];
    try {
      if (input.isNew) header.push(meta);
      if (input.isNew || JSON.stringify(recordedOwnTools) !== JSON.stringify(toolSpecs)) {
        header.push(toolListReady(toolSpecs));
      }
      // What the session went on without (a broken SKILL.md…), traced and streamed first.
      header.push(...input.surroundings.warnings);
      for (const record of header) trace.append(record);
    } catch (error) {
      trace.close();
      void processes.disposeAll();
      void subagents?.disposeAll();
      throw error;
    }
    const prices = options.prices ?? resolved.prices;
    const budget = options.budget ?? budgetOf(this.config);
    if (budget?.maxCostUsd !== undefined && prices === undefined) {
      // From the config (the agent's budget or a parent's subagent_budget): it covers models
      // with and without prices (a local model costs nothing), so it is a warning here.
      const info = adapter.info;
      this.logger.warn(
        `agent ${this.id}: the cost budget ($${budget.maxCostUsd}) does not apply to session ${id}: the project config has no prices for ${info.provider}/${info.modelId} (add prices to its model entry)`,
      );
    }
    const retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    const maxTurns = options.maxTurns ?? (this.config.max_turns > 0 ? this.config.max_turns : undefined);
    // A model entry's max_tokens is that model's output cap: it wins over the agent's.
    const maxTokens = input.resolved.maxTokens ?? this.config.model.max_tokens;
    return new Session({
      id,
      model: adapter,
      environment,
      toolSpecs,
      systemPrompt: input.systemPrompt,
      thinkingLevel,
      taskThinking,
      workspaceDir: input.workspaceDir,
      scratchpadDir: scratchpad,
      trace,
      state: input.state,
      rules: input.rules,
      guardrail: this.project.guardrail.rules,
      maxTurns,
      maxOutputTokens: maxTokens > 0 ? maxTokens : undefined,
      contextWindow: resolved.contextWindow,
      prices,
      budget,
      retry,
      header: input.isNew ? header : input.surroundings.warnings,
      meta,
      subagents,
      mcp,
      hooks: hookRunner,
      callRedaction: new ToolCallRedaction(secrets),
    });
  }
}

/** Loads an agent (its system_config.yaml, or `config` given in code) and the project config. */
export async function createAgent(options: CreateAgentOptions = {}): Promise<Agent> {
  const dataRoot = options.dataRoot ?? resolveDataRoot();
  const logger = options.logger ?? { warn: (line: string) => process.stderr.write(`${line}\n`) };
  const agentId = options.agentId ?? DEFAULT_AGENT_ID;
  let config: SystemConfig;
  if (options.config) {
    const parsed = SystemConfigSchema.safeParse(options.config);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new SetupError(
        `invalid agent config at ${issue.path.join(".") || "(root)"}: ${issue.message}`,
        "config",
      );
    }
    config = parsed.data;
  } else {
    const loaded =
      options.agentId && options.agentId !== DEFAULT_AGENT_ID
        ? await loadAgent(dataRoot, agentId)
        : await ensureDefaultAgent(dataRoot);
    if (!loaded.ok) {
      throw new SetupError(`cannot load agent "${agentId}":\n${formatConfigErrors(loaded.errors)}`, "config");
    }
    config = (loaded.agent as AgentConfig).config;
  }
  const project = await loadProjectConfig(dataRoot);
  if (!project.ok) {
    throw new SetupError(`cannot load the project config:\n${formatConfigErrors(project.errors)}`, "config");
  }
  await ensurePrivateDir(join(dataRoot));
  // Custom tool definitions are checked now, so a bad registration fails here and not mid-session;
  // a name clash with any tool of the agent's toolset too (whatever a session's model keeps of it).
  const registered = customTools(options.tools ?? [], builtinToolNames(config));
  // "a name that no tool has is a configuration error with a clear message".
  const customNames = registered.map((tool) => tool.name);
  checkAllowedTools(agentId, config, customNames);
  // A hook whose tools list has a typo would never run: an error too, naming the hook.
  checkHookTools(agentId, config, knownTools(config, customNames));
  return new Agent(agentId, dataRoot, config, project.config, options.tools ?? [], logger);
}

/**
 * A cost budget asked for in code needs prices to be a limit at all: without them it would be
 * silently ignored ("crossing one ends the task … instead of silently spending on").
 */
function refuseUnpricedCostBudget(
  options: { budget?: SessionBudget; prices?: ModelPrices },
  resolved: ResolvedModel,
): void {
  if (options.budget?.maxCostUsd === undefined || (options.prices ?? resolved.prices) !== undefined) return;
  const { provider, modelId } = resolved.adapter.info;
  throw new SetupError(
    `a cost budget (budget.maxCostUsd) needs the model's prices, and ${provider}/${modelId} has none: add prices to its model entry in the project config, or pass prices to createSession`,
    "config",
  );
}

function freshState(): ConversationState {
  return { messages: [], sessionTokens: emptyTokenCounts(), turns: 0, activeMs: 0, pendingNotes: [] };
}

function budgetOf(config: SystemConfig): SessionBudget | undefined {
  const budget = config.budget;
  if (!budget) return undefined;
  return { maxTokens: budget.max_tokens, maxCostUsd: budget.max_cost_usd, maxWallMs: budget.max_wall_ms };
}

async function existingFolder(path: string): Promise<string> {
  const absolute = resolve(path);
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(absolute);
  } catch {
    throw new SetupError(
      `workspace ${absolute} does not exist: create it or pick another folder`,
      "workspace",
    );
  }
  if (!info.isDirectory()) throw new SetupError(`workspace ${absolute} is not a folder`, "workspace");
  return absolute;
}

/**
 * Session rules a human granted, as recorded on their approval_decision events. Only an allow
 * grants a rule (the gate records none with a deny), so a rule on any other decision is not
 * taken: a resumed session never allows more than was granted. `SessionRules.add` then refuses
 * a prefix that is not one plain command.
 */
function grantedRules(records: readonly OmniMessage[]): SessionRule[] {
  const rules: SessionRule[] = [];
  for (const record of records) {
    if (record.type !== "event_msg" || record.payload.type !== "approval_decision") continue;
    if (record.payload.decision !== "allow") continue;
    const rule = (record.payload as { session_rule?: unknown }).session_rule;
    if (rule && typeof rule === "object") {
      const r = rule as Partial<Record<"tool" | "commandPrefix", unknown>>;
      if (typeof r.tool === "string") rules.push({ tool: r.tool });
      else if (typeof r.commandPrefix === "string") rules.push({ commandPrefix: r.commandPrefix });
    }
  }
  return rules;
}

function lastToolList(records: readonly OmniMessage[]): ToolSpec[] | undefined {
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i];
    if (record.type === "event_msg" && record.payload.type === "tool_list_ready") return record.payload.tools;
  }
  return undefined;
}

/** The last session_meta of a session's records (each trace file starts with one). */
function latestSessionMeta(records: readonly OmniMessage[]): OmniMessage<SessionMetaPayload> | undefined {
  let meta: OmniMessage<SessionMetaPayload> | undefined;
  for (const record of records) {
    if (record.type === "session_meta") meta = record as OmniMessage<SessionMetaPayload>;
  }
  return meta;
}
