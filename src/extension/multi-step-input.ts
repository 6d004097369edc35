// VS Code's multi-step input pattern for every command that asks more than one question (join, remove,
// MachineSet creation, reboot, mirrors, how to reach a node): each command declares its questions as data
// (a list of steps), and runSteps() shows them one at a time in the same quick input with a step counter
// ("2/5"), a Back button, the real default value and validation as the user types. A modal
// confirmation, if any, is the caller's and comes after runSteps() returns: nothing changes before every
// question is answered.
import * as vscode from 'vscode';

type Text<S> = string | ((answers: Partial<S>) => string);

/** A quick pick entry that stands for a value. */
export interface PickItem<V> extends vscode.QuickPickItem {
  value: V;
}

/** A quick pick entry whose value comes from a further dialog (a file picker); undefined there shows the step again. */
export interface PickAction<V> extends vscode.QuickPickItem {
  choose: () => Promise<V | undefined>;
}

interface StepBase<S> {
  /** Asked only when this holds for the answers so far (a kubeadm-only question); always asked when unset. */
  when?: (answers: Partial<S>) => boolean;
  title: Text<S>;
}

export interface PickStep<S, K extends keyof S> extends StepBase<S> {
  kind: 'pick';
  key: K;
  placeholder?: Text<S>;
  /** The entries; a promise keeps the picker busy (a cluster read) until it settles. */
  items: (
    answers: Partial<S>,
  ) => readonly (PickItem<S[K]> | PickAction<S[K]>)[] | Promise<readonly (PickItem<S[K]> | PickAction<S[K]>)[]>;
}

export interface InputStep<S, K extends keyof S> extends StepBase<S> {
  kind: 'input';
  key: K;
  /** The line under the box; a promise keeps the box busy (a cluster read) until it settles. */
  prompt?: Text<S> | ((answers: Partial<S>) => Promise<string>);
  placeholder?: string;
  /** The value shown first (the real default); an earlier answer wins when the user comes Back to the step. */
  value?: (answers: Partial<S>) => string | undefined;
  /** Why the text cannot be accepted (shown as it is typed), or undefined. */
  validate?: (text: string, answers: Partial<S>) => string | undefined;
  /** The answer from the accepted text (default: the text trimmed). */
  parse?: (text: string, answers: Partial<S>) => S[K];
  /** How an answer is shown again when the user comes Back (default: String). */
  show?: (value: S[K]) => string;
  password?: boolean;
}

/** One question: it writes the answer to `key` of the answers. */
export type Step<S> = { [K in keyof S]-?: PickStep<S, K> | InputStep<S, K> }[keyof S];

const BACK = Symbol('back');
type Outcome<V> = { value: V } | typeof BACK | undefined;

/**
 * Asks the steps in order, starting from `initial` (answers known already are not asked when their step's `when`
 * says so). Back returns to the previous asked step with its answer shown; Escape ends with undefined. A step whose
 * items throw ends the whole flow with that error (the caller words it).
 */
export async function runSteps<S>(steps: readonly Step<S>[], initial: Partial<S> = {}): Promise<S | undefined> {
  const answers: Partial<S> = { ...initial };
  const asked: number[] = [];
  let i = 0;
  while (i < steps.length) {
    const step = steps[i] as Step<S>;
    if (step.when && !step.when(answers)) {
      i++;
      continue;
    }
    const visible = steps.filter((s) => !s.when || s.when(answers));
    const position = { step: visible.indexOf(step) + 1, totalSteps: visible.length, back: asked.length > 0 };
    const outcome = await ask(step, answers, position);
    if (outcome === undefined) return undefined;
    if (outcome === BACK) {
      i = asked.pop() ?? 0;
      continue;
    }
    (answers as Record<keyof S, unknown>)[step.key] = outcome.value;
    asked.push(i);
    i++;
  }
  return answers as S;
}

interface Position {
  step: number;
  totalSteps: number;
  back: boolean;
}

const text = <S>(t: Text<S> | undefined, answers: Partial<S>): string | undefined =>
  typeof t === 'function' ? t(answers) : t;

function ask<S>(step: Step<S>, answers: Partial<S>, at: Position): Promise<Outcome<S[keyof S]>> {
  return step.kind === 'pick' ? askPick(step, answers, at) : askInput(step, answers, at);
}

/** The frame every step shares: title, counter, Back, kept open when focus moves to look something up. */
function frame<S>(input: vscode.QuickInput, step: Step<S>, answers: Partial<S>, at: Position): void {
  input.title = text(step.title, answers);
  if (at.totalSteps > 1) {
    input.step = at.step;
    input.totalSteps = at.totalSteps;
  }
  input.ignoreFocusOut = true;
}

/** Resolves once: the first of accept, Back and hide wins, and the input is disposed. */
function settle<V>(input: vscode.QuickInput): {
  done: Promise<Outcome<V>>;
  finish: (o: Outcome<V>) => void;
  subscriptions: vscode.Disposable[];
} {
  let finish!: (o: Outcome<V>) => void;
  const subscriptions: vscode.Disposable[] = [];
  const done = new Promise<Outcome<V>>((resolve) => {
    let settled = false;
    finish = (o) => {
      if (settled) return;
      settled = true;
      resolve(o);
      for (const s of subscriptions) s.dispose();
      input.dispose();
    };
  });
  subscriptions.push(input.onDidHide(() => finish(undefined)));
  return { done, finish, subscriptions };
}

async function askPick<S, K extends keyof S>(
  step: PickStep<S, K>,
  answers: Partial<S>,
  at: Position,
): Promise<Outcome<S[K]>> {
  const items = step.items(answers);
  // A question with one way to answer it, a dialog (no key remembered: the file picker), opens that dialog at
  // once; dismissing it ends the command, as Escape does.
  const only = !(items instanceof Promise) && items.length === 1 ? items[0] : undefined;
  if (only && 'choose' in only) {
    const value = await only.choose();
    return value === undefined ? undefined : { value };
  }
  const pick = vscode.window.createQuickPick<PickItem<S[K]> | PickAction<S[K]>>();
  frame(pick, step as Step<S>, answers, at);
  pick.placeholder = text(step.placeholder, answers);
  if (at.back) pick.buttons = [vscode.QuickInputButtons.Back];
  const { done, finish, subscriptions } = settle<S[K]>(pick);
  subscriptions.push(
    pick.onDidTriggerButton((b) => {
      if (b === vscode.QuickInputButtons.Back) finish(BACK);
    }),
    pick.onDidAccept(async () => {
      const chosen = pick.selectedItems[0] ?? pick.activeItems[0];
      if (!chosen) return;
      if ('value' in chosen) return finish({ value: chosen.value });
      pick.enabled = false;
      pick.busy = true;
      const value = await chosen.choose();
      pick.enabled = true;
      pick.busy = false;
      if (value !== undefined) finish({ value });
      else pick.show(); // the dialog was dismissed: this step again
    }),
  );
  if (items instanceof Promise) {
    pick.busy = true;
    pick.enabled = false;
  }
  pick.show();
  try {
    pick.items = await items;
  } catch (err) {
    finish(undefined);
    throw err;
  }
  pick.busy = false;
  pick.enabled = true;
  // The earlier answer (on Back) is the active entry; else the first, which the step lists first on purpose.
  const previous = answers[step.key];
  const again = pick.items.find((x) => 'value' in x && previous !== undefined && x.value === previous);
  if (again) pick.activeItems = [again];
  return done;
}

async function askInput<S, K extends keyof S>(
  step: InputStep<S, K>,
  answers: Partial<S>,
  at: Position,
): Promise<Outcome<S[K]>> {
  const box = vscode.window.createInputBox();
  frame(box, step as Step<S>, answers, at);
  const prompt = typeof step.prompt === 'function' ? step.prompt(answers) : step.prompt;
  if (!(prompt instanceof Promise)) box.prompt = prompt;
  if (step.placeholder) box.placeholder = step.placeholder;
  if (step.password) box.password = true;
  const previous = answers[step.key];
  box.value = previous !== undefined ? (step.show ?? String)(previous) : (step.value?.(answers) ?? '');
  if (at.back) box.buttons = [vscode.QuickInputButtons.Back];
  const problem = (v: string) => step.validate?.(v, answers);
  const { done, finish, subscriptions } = settle<S[K]>(box);
  subscriptions.push(
    box.onDidTriggerButton((b) => {
      if (b === vscode.QuickInputButtons.Back) finish(BACK);
    }),
    // Validation as the user types; an empty box is not scolded before anything was typed.
    box.onDidChangeValue((v) => (box.validationMessage = v ? problem(v) : undefined)),
    box.onDidAccept(() => {
      const why = problem(box.value);
      box.validationMessage = why;
      if (why) return;
      finish({ value: step.parse ? step.parse(box.value, answers) : (box.value.trim() as S[K]) });
    }),
  );
  if (prompt instanceof Promise) {
    box.busy = true;
    box.enabled = false;
  }
  box.show();
  if (prompt instanceof Promise) {
    try {
      box.prompt = await prompt;
    } catch (err) {
      finish(undefined);
      throw err;
    }
    box.busy = false;
    box.enabled = true;
  }
  return done;
}
