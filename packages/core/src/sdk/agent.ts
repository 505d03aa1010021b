import { join } from "node:path";
import type { OmniMessage } from "@penguin/protocol";
import {
  DEFAULT_AGENT_ID,
  DEFAULT_COMPACTION_PROMPT,
  ensurePrivateDir,
  findModel,
  type McpServer,
  type ProjectConfig,
  resolveDataRoot,
  type SystemConfig,
  scratchpadDir,
} from "@penguin/state";
import { readSession, rebuildContext, type TraceLocation } from "@penguin/trace";
import { SessionRules } from "../approval/session-rules.js";
import { nextIdNumbers, UserAnswerers } from "../tools/messaging/index.js";
import { loadAgentConfig, loadProject } from "./agent-config.js";
import type {
  AgentLogger,
  CreateAgentOptions,
  CreateSessionOptions,
  ResumeSessionOptions,
} from "./agent-options.js";
import { mayLaunchAt, seatOf } from "./agent-seat.js";
import { checkAllowedTools } from "./allowed-tools.js";
import { ToolCallRedaction } from "./call-redaction.js";
import { type ChildLink, type ChildSessionOptions, childSessionParts } from "./child-sessions.js";
import { closeOpenCompaction, freshState, resumedState } from "./conversation-state.js";
import { type CustomToolRegistration, customTools } from "./custom-tools.js";
import {
  type ChosenExecutionProfile,
  executionProfileFor,
  fileConfinementOf,
  recordedExecutionProfile,
  sandboxPlacementOf,
} from "./execution-profile.js";
import { checkHookTools } from "./hook-tools.js";
import { builtinToolNames, knownTools } from "./known-tools.js";
import { type ModelConnectionSettings, type ResolvedModel, resolveModel } from "./model-choice.js";
import { grantedRules, lastToolList, latestSessionMeta, readRecordedSession } from "./recorded-session.js";
import { Session } from "./session.js";
import type { SessionAssembly } from "./session-assembly.js";
import { sessionEnvironment } from "./session-environment.js";
import { sessionExecutionSource } from "./session-executions.js";
import { newSessionMeta, recordSessionHeader } from "./session-header.js";
import { newSessionId } from "./session-id.js";
import { SessionJournal } from "./session-journal.js";
import { refuseUnpricedCostBudget, sessionLimits } from "./session-limits.js";
import { sessionMcpToolset } from "./session-mcp.js";
import { sessionMcpServers } from "./session-mcp-servers.js";
import { traceMetrics } from "./session-metrics.js";
import { sessionNotices } from "./session-notices.js";
import { sessionSystemPrompt } from "./session-prompt.js";
import { recordingModel, sessionSecrets } from "./session-secrets.js";
import { sessionProcesses, sessionTools } from "./session-tools.js";
import { sessionTrace, traceLocation } from "./session-trace.js";
import { SetupError } from "./setup-error.js";
import { sessionSubagentManager, subagentPointers } from "./subagents.js";
import { prepareSurroundings, type SessionSurroundings } from "./surroundings.js";
import { checkThinkingLevel } from "./thinking.js";
import { RecoveryNotice } from "./uncertain-notice.js";
import { existingFolder } from "./workspace-folder.js";

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
    return traceLocation(this.dataRoot);
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
    // Checked before anything is written: a bad server of the caller's leaves no trace behind.
    const mcpServers = sessionMcpServers(this.config.tools.mcpServers, options.mcpServers);
    const resolved = recordingModel(
      resolveModel(model, this.project, this.modelSettings),
      options.record,
      () => this.secretsOf(options, mcpServers),
    );
    refuseUnpricedCostBudget(options, resolved);
    const executionProfile = executionProfileFor(this.config, options.executionProfile);
    return this.startSession(id, resolved, workspaceDir, options, { mcpServers, executionProfile });
  }

  /**
   * A new session's system prompt, trace and runtime; a child names its parent. Its MCP servers
   * are the agent's unless a top-level session brings its own too.
   */
  private async startSession(
    id: string,
    resolved: ResolvedModel,
    workspaceDir: string,
    options: CreateSessionOptions,
    link: { executionProfile: ChosenExecutionProfile; child?: ChildLink; mcpServers?: McpServer[] },
  ): Promise<Session> {
    const { child, executionProfile } = link;
    const surroundings = await this.surroundings(workspaceDir);
    const systemPrompt = await sessionSystemPrompt({
      agentId: this.id,
      dataRoot: this.dataRoot,
      config: this.config,
      extraTools: this.extraTools,
      sessionId: id,
      workspaceDir,
      resolved,
      surroundings,
      child: child && { instructions: child.instructions, mayLaunch: mayLaunchAt(this.config, child.tree) },
    });
    const trace = sessionTrace(this.dataRoot, id, { mode: "create", topLevel: !child });
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
      mcpServers: link.mcpServers ?? this.config.tools.mcpServers,
      ...child,
      surroundings,
      executionProfile,
    });
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
    const {
      session: sessionOptions,
      mailbox,
      tree,
      instructions,
      allowedTools,
      executionProfile,
    } = childSessionParts(options);
    const workspaceDir = await existingFolder(sessionOptions.workspaceDir);
    const id = newSessionId();
    const resolved =
      typeof model === "string" ? resolveModel(model, this.project, this.modelSettings) : model;
    // A launched child offered fewer tools runs as this agent with a narrower `allowed_tools`.
    const maker = allowedTools ? this.narrowed(allowedTools) : this;
    return maker.startSession(
      id,
      resolved,
      workspaceDir,
      { ...sessionOptions, prices: resolved.prices },
      { executionProfile, child: { parentSessionId, mailbox, tree, instructions } },
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
    // The instructions are in the recorded system prompt.
    const { session, mailbox, tree, executionProfile } = childSessionParts(options);
    const { workspaceDir: _recorded, ...rest } = session;
    const resumeOptions: ResumeSessionOptions = same
      ? { ...rest, model: parentModel.adapter, prices: parentModel.prices }
      : rest;
    return this.resume(sessionId, resumeOptions, { parentSessionId, mailbox, tree }, executionProfile);
  }

  /** This agent offering only `allowedTools` (a launched child's narrower list). */
  private narrowed(allowedTools: string[]): Agent {
    const config = { ...this.config, allowed_tools: allowedTools };
    return new Agent(this.id, this.dataRoot, config, this.project, this.extraTools, this.logger);
  }

  /** Another agent of the same data root, with this agent's custom tools and logger. @internal */
  otherAgent(agentId: string): Promise<Agent> {
    return createAgent({ dataRoot: this.dataRoot, agentId, tools: this.extraTools, logger: this.logger });
  }

  private async resume(
    sessionId: string,
    options: ResumeSessionOptions,
    child?: ChildLink,
    inherited?: ChosenExecutionProfile,
  ): Promise<Session> {
    const parentSessionId = child?.parentSessionId;
    checkThinkingLevel(options.thinkingLevel, "resumeSession");
    // A subagent gets only its agent's configured servers, never its parent's own.
    const mcpServers = child
      ? this.config.tools.mcpServers
      : sessionMcpServers(this.config.tools.mcpServers, options.mcpServers);
    const records = readRecordedSession(this.location, this.dataRoot, sessionId);
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
    const state = resumedState(resume);
    const rules = new SessionRules();
    for (const rule of grantedRules(records)) rules.add(rule);
    const surroundings = await this.surroundings(workspaceDir, records);
    const trace = sessionTrace(this.dataRoot, sessionId, { mode: "open", topLevel: !parentSessionId });
    const closed = closeOpenCompaction(trace, resume);
    const journal = new SessionJournal({ location: this.location, sessionId, trace, records });
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
      mcpServers,
      recordedTools: lastToolList(records),
      recordedMeta: latestSessionMeta(records),
      ...child,
      surroundings,
      resumeNotes: closed,
      pointers: parentSessionId === undefined ? subagentPointers(records) : undefined,
      firstNumbers: parentSessionId === undefined ? nextIdNumbers(records) : undefined,
      journal,
      // A resumed session keeps its own profile; a child its parent's.
      executionProfile: inherited ?? recordedExecutionProfile(this.config, meta),
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

  /** Values redacted from tool output and recordings (see `sessionSecrets`). */
  private secretsOf(options: { secrets?: string[] }, mcpServers: readonly McpServer[]): string[] {
    return sessionSecrets({
      project: this.project,
      config: this.config,
      mcpServers,
      secrets: options.secrets,
    });
  }

  /**
   * A session from its parts: the tools (with the subagent manager of a top-level session), the
   * Environment and hooks, the MCP servers, the trace's header and the limits it runs under.
   */
  private assemble(input: SessionAssembly): Session {
    const { id, resolved, options, trace } = input;
    const thinkingLevel = options.thinkingLevel ?? this.config.model.thinking_level;
    // The level of the task now running (a run may override the session's), for children it spawns.
    const taskThinking = { level: thinkingLevel };
    const secrets = this.secretsOf(options, input.mcpServers);
    const adapter = resolved.adapter;
    const scratchpad = scratchpadDir(this.dataRoot, id);
    const where = { workspaceDir: input.workspaceDir, scratchpadDir: scratchpad, dataRoot: this.dataRoot };
    const processes = sessionProcesses(this.config, {
      ...where,
      sandbox: sandboxPlacementOf(input.executionProfile, where),
    });
    const isSubagent = input.parentSessionId !== undefined;
    const subagents = isSubagent
      ? undefined
      : sessionSubagentManager(this, this.config, input, () => taskThinking.level);
    // The root agent asks the user through these; a child asks its parent through its mailbox.
    const answerers = isSubagent ? undefined : new UserAnswerers(options.onAsk);
    const mailbox = subagents ? { ...subagents.rootMailbox, user: answerers } : input.mailbox;
    const tree = subagents ? { manager: subagents, depth: 0 } : input.tree;
    const executions = sessionExecutionSource({
      ...{ location: this.location, config: this.config, sessionId: id, tree, mailbox },
      parentSessionId: input.parentSessionId,
    });
    const journal = input.journal ?? new SessionJournal({ location: this.location, sessionId: id, trace });
    const tools = sessionTools({
      agentId: this.id,
      config: this.config,
      extraTools: this.extraTools,
      logger: this.logger,
      modelHasVision: adapter.info.vision,
      isSubagent,
      subagents,
      mailbox,
      metrics: traceMetrics(this.location, id),
      journal,
      seat: seatOf(tree, mailbox, this.config, this.extraTools, input.surroundings.agents),
      executions,
    });
    const { environment, hookRunner } = sessionEnvironment({
      sessionId: id,
      workspaceDir: input.workspaceDir,
      scratchpadDir: scratchpad,
      config: this.config,
      project: this.project,
      resolved,
      tools,
      secrets,
      processes,
      surroundings: input.surroundings,
      logger: this.logger,
      checkpoints: { trace, location: this.location, root: input.parentSessionId ?? id },
      files: options.files,
      confinement: fileConfinementOf(input.executionProfile, where),
      offline: input.executionProfile.profile.kind === "sandbox" && !input.executionProfile.profile.network,
    });
    const toolSpecs = environment.toolSpecs();
    const mcp = sessionMcpToolset({
      agentId: this.id,
      config: this.config,
      servers: input.mcpServers,
      workspaceDir: input.workspaceDir,
      tools,
      environment,
      recordedTools: input.recordedTools,
      secrets,
      hooks: input.surroundings.hooks,
      logger: this.logger,
    });
    const meta =
      input.recordedMeta ??
      newSessionMeta({
        sessionId: id,
        agentId: this.id,
        resolved,
        systemPrompt: input.systemPrompt,
        workspaceDir: input.workspaceDir,
        parentSessionId: input.parentSessionId,
        executionProfile: input.executionProfile.name,
      });
    let header: OmniMessage[];
    try {
      header = recordSessionHeader(trace, {
        isNew: input.isNew,
        meta,
        toolSpecs,
        recordedTools: input.recordedTools,
        mcp,
        warnings: input.surroundings.warnings,
      });
    } catch (error) {
      trace.close();
      void processes.disposeAll();
      void subagents?.disposeAll();
      throw error;
    }
    const limits = sessionLimits({
      agentId: this.id,
      sessionId: id,
      config: this.config,
      resolved,
      options,
      logger: this.logger,
    });
    const startHeader = input.isNew ? header : [...(input.resumeNotes ?? []), ...input.surroundings.warnings];
    const notices = sessionNotices({
      handlers: input.surroundings.handlers,
      settings: this.config.notices,
      trace,
      header: startHeader,
      processes,
      subagents,
    });
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
      maxTurns: limits.maxTurns,
      maxOutputTokens: limits.maxOutputTokens,
      contextWindow: resolved.contextWindow,
      prices: limits.prices,
      budget: limits.budget,
      retry: limits.retry,
      header: startHeader,
      meta,
      subagents,
      executions,
      answerers,
      agents: input.surroundings.agents,
      notices,
      mcp,
      hooks: hookRunner,
      callRedaction: new ToolCallRedaction(secrets),
      journal,
      // What a crash left (uncertain calls, surviving jobs): one notice with the first task's request.
      ...(input.journal ? { recoveryNotice: new RecoveryNotice(input.journal) } : {}),
      compaction: {
        ...this.config.compaction,
        prompt: this.config.compaction.prompt ?? DEFAULT_COMPACTION_PROMPT,
      },
    });
  }
}

/** Loads an agent (its system_config.yaml, or `config` given in code) and the project config. */
export async function createAgent(options: CreateAgentOptions = {}): Promise<Agent> {
  const dataRoot = options.dataRoot ?? resolveDataRoot();
  const logger = options.logger ?? { warn: (line: string) => process.stderr.write(`${line}\n`) };
  const agentId = options.agentId ?? DEFAULT_AGENT_ID;
  const config = await loadAgentConfig(dataRoot, agentId, options);
  const project = await loadProject(dataRoot);
  await ensurePrivateDir(join(dataRoot));
  // Custom tool definitions are checked now, so a bad registration fails here and not mid-session;
  // a name clash with any tool of the agent's toolset too (whatever a session's model keeps of it).
  const registered = customTools(options.tools ?? [], builtinToolNames(config));
  // "a name that no tool has is a configuration error with a clear message".
  const customNames = registered.map((tool) => tool.name);
  checkAllowedTools(agentId, config, customNames);
  // A hook whose tools list has a typo would never run: an error too, naming the hook.
  checkHookTools(agentId, config, knownTools(config, customNames));
  return new Agent(agentId, dataRoot, config, project, options.tools ?? [], logger);
}
