// Printers for the batch API group.
import { humanDuration, parseTime } from "./duration.js";
import {
  age,
  ageColumn,
  arr,
  boolPtr,
  col,
  containerCells,
  containersColumn,
  formatLabelSelector,
  imagesColumn,
  int,
  name,
  nameColumn,
  selectorColumn,
  since,
  str,
} from "./helpers.js";
import type { Printer } from "./types.js";

function hasCondition(conditions: unknown, type: string): boolean {
  const c = arr(conditions).find((x) => x?.type === type);
  return c !== undefined && c.status === "True";
}

export function jobStatus(job: any): string {
  const conditions = job?.status?.conditions;
  if (hasCondition(conditions, "Complete")) return "Complete";
  if (hasCondition(conditions, "Failed")) return "Failed";
  if (parseTime(job?.metadata?.deletionTimestamp) !== undefined) return "Terminating";
  if (hasCondition(conditions, "Suspended")) return "Suspended";
  if (hasCondition(conditions, "FailureTarget")) return "FailureTarget";
  if (hasCondition(conditions, "SuccessCriteriaMet")) return "SuccessCriteriaMet";
  return "Running";
}

export const jobPrinter: Printer = {
  columns: [
    nameColumn(),
    col("Status", "string", "Overall state of the job."),
    col("Completions", "string", "Succeeded pods out of required completions."),
    col("Duration", "string", "Time the job has been (or was) running."),
    ageColumn(),
    containersColumn(),
    imagesColumn(),
    selectorColumn(),
  ],
  cells(job, now) {
    const spec = job?.spec ?? {};
    const succeeded = int(job?.status?.succeeded);
    let completions: string;
    if (typeof spec.completions === "number") {
      completions = `${succeeded}/${int(spec.completions)}`;
    } else {
      const parallelism = int(spec.parallelism);
      completions = parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
    }
    const start = parseTime(job?.status?.startTime);
    const end = parseTime(job?.status?.completionTime);
    let duration = "";
    if (start !== undefined) duration = humanDuration((end ?? now.getTime()) - start);
    const [names, images] = containerCells(spec.template?.spec?.containers);
    return [
      name(job),
      jobStatus(job),
      completions,
      duration,
      age(job, now),
      names,
      images,
      formatLabelSelector(spec.selector),
    ];
  },
};

export const cronJobPrinter: Printer = {
  columns: [
    nameColumn(),
    col("Schedule", "string", "Cron schedule."),
    col("Timezone", "string", "Time zone the schedule is evaluated in."),
    col("Suspend", "boolean", "Whether new runs are suspended."),
    col("Active", "integer", "Number of running jobs."),
    col("Last Schedule", "string", "Time since a job was last scheduled."),
    ageColumn(),
    containersColumn(),
    imagesColumn(),
    selectorColumn(),
  ],
  cells(cj, now) {
    const spec = cj?.spec ?? {};
    const last = cj?.status?.lastScheduleTime;
    const jobSpec = spec.jobTemplate?.spec;
    const [names, images] = containerCells(jobSpec?.template?.spec?.containers);
    return [
      name(cj),
      str(spec.schedule),
      typeof spec.timeZone === "string" ? spec.timeZone : "<none>",
      boolPtr(spec.suspend),
      arr(cj?.status?.active).length,
      last === undefined || last === null ? "<none>" : since(last, now),
      age(cj, now),
      names,
      images,
      formatLabelSelector(jobSpec?.selector),
    ];
  },
};
