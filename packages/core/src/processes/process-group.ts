import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import type { SignalPlan } from "./platform.js";
import { readProcStat } from "./process-identity.js";

// Process groups: whether one still has a live member, and delivering a signal plan to it.

/**
 * Whether a live process is left in process group `pgid`. `kill(-pgid, 0)` also counts zombies:
 * children orphaned by the shell are reparented to init, and an init that does not reap (common
 * in containers) would leave them as zombies forever, so on Linux a group that still answers is
 * checked in /proc for a member that is not a zombie.
 */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return process.platform === "linux" ? procHasLiveMember(pgid) : true;
}

function procHasLiveMember(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    const stat = readProcStat(entry); // undefined: exited meanwhile
    if (stat?.pgrp === pgid && stat.state !== "Z") return true;
  }
  return false;
}

export function deliver(plan: SignalPlan): void {
  if (plan.kind === "group-signal") {
    try {
      process.kill(-plan.pgid, plan.signal);
    } catch {
      // ESRCH: the group is already gone.
    }
    return;
  }
  const helper = spawn(plan.file, plan.args, { stdio: "ignore", windowsHide: true });
  helper.on("error", () => {
    // The tree may already be gone, or the helper missing; nothing more can be done.
  });
}
