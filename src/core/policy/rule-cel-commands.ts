// The admission form of the exec command rules (WIN060: a POSIX shell or /bin path; WIN061: PowerShell on
// Nano Server), from the rules' own lists (the exec places, the shells, the PowerShell names and images).
// Kept cheap for the API server: each rule's validation asks, per container, whether an exec place's
// program matches one regular expression (written for JavaScript's lowercase and whitespace), and takes
// the image apart only for a container where one does. The message reads one variable per container list
// that holds a row per container (what its image is, the program of each exec place), worked out only
// when the validation has failed.
import {
  BARE_NANO_SERVER,
  BUSYBOX,
  EXEC_PLACES,
  POSIX_DIRS,
  POSIX_SHELLS,
  POWERSHELL_IMAGE,
  PWSH,
  WIN060_INSTEAD,
  WIN061_INSTEAD,
  WIN061_MISSING,
  WINDOWS_POWERSHELL,
  win060Message,
  win061Message,
} from '../rules/families/commands';
import { JS_NOT_WS, JS_WS, present, reJsLower, str, strList } from './cel';
import { item, join, previewCel, type ContainerGroup, type RuleCel } from './finding-cel';
import { isRepository, withImage, type ImageCel } from './image-cel';
import { hostProcessContainer, POLICY_CONTAINER_GROUPS, v } from './targeting-cel';

/** RE2 on a program: its first word is one of `names` (any directory before it, any case). */
const firstWordIs = (names: string[]) =>
  `^${JS_WS}*(${JS_NOT_WS}*[/\\\\])?(${names.map((n) => reJsLower(n)).join('|')})(${JS_WS}|$)`;

/** RE2 on a program: its first word is a POSIX shell or a program under /bin … (any case). */
const POSIX_PROGRAM = `^${JS_WS}*((${POSIX_SHELLS.map((n) => reJsLower(n)).join('|')})(${JS_WS}|$)|${reJsLower(POSIX_DIRS, { pattern: true })}${JS_NOT_WS})`;

/** Nano Server images (isNanoServer): a repository or a tag naming nanoserver, mcr.microsoft.com/powershell aside. */
const nanoServer = (i: ImageCel) =>
  `(!${isRepository(i, POWERSHELL_IMAGE.registry, POWERSHELL_IMAGE.repository)} && (${i.repository}.contains('nanoserver') || ${i.tag}.matches('(^|[-_.])nanoserver')))`;

/** What a container's row says of its image, one letter each (row[1]; 'h' says it is a HostProcess container). */
const FLAGS: { letter: string; when: (i: ImageCel) => string }[] = [
  { letter: 'b', when: (i) => `${i.repository}.matches(${str(`(^|/)${BUSYBOX}$`)})` },
  { letter: 'n', when: (i) => nanoServer(i) },
  {
    letter: 'p',
    when: (i) =>
      `(${isRepository(i, POWERSHELL_IMAGE.registry, POWERSHELL_IMAGE.repository)} && ${i.tag}.contains(${str(POWERSHELL_IMAGE.nanoTag)}))`,
  },
  {
    letter: 'B',
    when: (i) => `(${BARE_NANO_SERVER.map((b) => isRepository(i, b.registry, b.repository)).join(' || ')})`,
  },
];
const flag = (row: string, letter: string) => `${row}[1].contains(${str(letter)})`;
/** CEL bool: the image (its parts) has the flag `letter`. */
const flagWhen = (letter: string, i: ImageCel) => FLAGS.filter((f) => f.letter === letter).map((f) => f.when(i))[0];

/** CEL bool: some exec place of container `c` has a program that `pattern` (RE2) matches. */
const anyProgram = (c: string, pattern: string) =>
  EXEC_PLACES.map((place) => {
    const list = [c, ...place.rel].join('.');
    return `(${present(c, place.rel)} && size(${list}) > 0 && string(${list}[0]).matches(${str(pattern)}))`;
  }).join(' || ');

/** CEL bool: the image of `c` is busybox (the last segment of its repository), without taking it apart. */
const busybox = (c: string) =>
  `(has(${c}.image) && string(${c}.image).lowerAscii().split('@')[0].matches(${str(`(^|/)${BUSYBOX}(:[^:/]*)?$`)}))`;

/** CEL bool: `test` (on the image's parts) holds for the image of `c`. */
const imageIs = (c: string, test: (i: ImageCel) => string) =>
  `(has(${c}.image) && ${withImage(`string(${c}.image)`, test)})`;

/** CEL bool: some container of any list has `test`. */
const anyContainer = (test: (c: string) => string) =>
  POLICY_CONTAINER_GROUPS.map((g) => `${v(g)}.exists(c, ${test('c')})`).join(' || ');

/** The first row index of a program: the row is [index, flags, image, program per exec place]. */
const FIRST_PROGRAM = 3;
const PLACES = EXEC_PLACES.map((_, k) => FIRST_PROGRAM + k);

/**
 * Per container group, a row per container: its index, its flags, its image and the program of each exec
 * place ('' where it has none). Worked out once per object; the rules read only these rows.
 */
const execVariables = () =>
  POLICY_CONTAINER_GROUPS.map((g) => {
    const programs = EXEC_PLACES.map((place) => {
      const list = ['c', ...place.rel].join('.');
      return `(${present('c', place.rel)} && size(${list}) > 0 ? string(${list}[0]) : '')`;
    });
    // string(): the container lists are dyn (an absent list is []), and a list literal takes one type.
    const image = withImage('string(c.image)', (i) =>
      FLAGS.filter((f) => f.letter !== 'h')
        .map((f) => `(${f.when(i)} ? ${str(f.letter)} : '')`)
        .join(' + '),
    );
    const flags = `(has(c.image) ? ${image} : '') + (${hostProcessContainer('c')} ? 'h' : '')`;
    return {
      name: execRows(g),
      expression: `${v(g)}.map(c, [string(${v(g)}.indexOf(c)), ${flags}, has(c.image) ? string(c.image) : '', ${programs.join(', ')}])`,
    };
  });
const execRows = (g: ContainerGroup) => `exec${g === 'initContainers' ? 'Init' : ''}Rows`;

/**
 * A pod-level finding list over every group's rows: for each row `when` accepts, the first exec place whose
 * program `test` accepts (CEL bool on the row and the program), as the item `of` builds (the row, the
 * place's index k, the field path).
 */
const perRow = (
  p: string,
  when: (row: string) => string,
  test: (row: string, program: string) => string,
  of: (row: string, k: string, field: string) => string,
) =>
  POLICY_CONTAINER_GROUPS.map((g) => {
    const places = `[${PLACES.join(', ')}]`;
    const field = `${join(p, `${g}[`)} + r[0] + '].' + ${strList(EXEC_PLACES.map((x) => x.rel.join('.')))}[k - ${FIRST_PROGRAM}] + '[0]'`;
    return `${v(execRows(g))}.filter(r, ${when('r')} && ${places}.exists(k, ${test('r', 'r[k]')})).map(r, ${places}.filter(k, ${test('r', 'r[k]')}).map(k, ${of('r', 'k', field)})[0])`;
  }).join(' + ');

const outcome = (k: string) => `${strList(EXEC_PLACES.map((x) => x.outcome))}[${k} - ${FIRST_PROGRAM}]`;

const WINDOWS_POWERSHELL_PROGRAM = firstWordIs(WINDOWS_POWERSHELL);
const PWSH_PROGRAM = firstWordIs(PWSH);

/** The RE2 patterns on a program, for the tests that hold them to the rules' JavaScript. */
export const EXEC_PROGRAM_PATTERNS = {
  posix: POSIX_PROGRAM,
  windowsPowerShell: WINDOWS_POWERSHELL_PROGRAM,
  pwsh: PWSH_PROGRAM,
};

export const COMMAND_RULE_CEL: RuleCel[] = [
  {
    // Windows builds of busybox (the Kubernetes e2e test images) do ship sh and /bin/*.
    id: 'WIN060',
    hostProcess: true,
    variables: execVariables,
    when: () => anyContainer((c) => `(${anyProgram(c, POSIX_PROGRAM)}) && !${busybox(c)}`),
    findings: [
      {
        parts: 4,
        pod: (_s, p) =>
          perRow(
            p,
            (r) => `!${flag(r, 'b')}`,
            (_r, program) => `${program}.matches(${str(POSIX_PROGRAM)})`,
            (r, k, field) =>
              item(
                field,
                previewCel(`${r}[${k}]`, 40),
                outcome(k),
                `${flag(r, 'n')} ? ${str(WIN060_INSTEAD.nano)} : ${str(WIN060_INSTEAD.other)}`,
              ),
          ),
        message: (field, _note, [shown, what, instead]) => win060Message(field, shown, what, instead),
      },
    ],
  },
  {
    // HostProcess containers run the host's programs, and the host has Windows PowerShell. On a bare Nano
    // Server image, pwsh is missing too.
    id: 'WIN061',
    hostProcess: true,
    variables: execVariables,
    // A bare Nano Server image is a Nano Server image ('B' implies 'n' in the rows).
    when: () =>
      anyContainer(
        (c) =>
          `!${hostProcessContainer(c)} && (((${anyProgram(c, WINDOWS_POWERSHELL_PROGRAM)}) && ${imageIs(c, (i) => `(${flagWhen('p', i)} || ${flagWhen('n', i)})`)}) || ((${anyProgram(c, PWSH_PROGRAM)}) && ${imageIs(c, (i) => flagWhen('B', i))}))`,
      ),
    findings: [
      {
        parts: 5,
        pod: (_s, p) =>
          perRow(
            p,
            (r) => `!${flag(r, 'h')} && (${flag(r, 'p')} || ${flag(r, 'n')})`,
            (r, program) =>
              `(${program}.matches(${str(WINDOWS_POWERSHELL_PROGRAM)}) || (${flag(r, 'B')} && ${program}.matches(${str(PWSH_PROGRAM)})))`,
            (r, k, field) =>
              item(
                field,
                `${flag(r, 'p')} ? ${str(WIN061_MISSING.powerShellImage)} : (${r}[${k}].matches(${str(WINDOWS_POWERSHELL_PROGRAM)}) ? ${str(WIN061_MISSING.windowsPowerShell)} : ${str(WIN061_MISSING.any)})`,
                previewCel(`${r}[2]`, 60),
                outcome(k),
                `${flag(r, 'p')} ? ${str(WIN061_INSTEAD.powerShellImage)} : ${str(WIN061_INSTEAD.other)}`,
              ),
          ),
        message: (field, _note, [missing, shown, what, instead]) => win061Message(field, missing, shown, what, instead),
      },
    ],
  },
];
