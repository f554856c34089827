/**
 * The token estimators' corpus: texts of thirteen classes made from a seed, so the estimator is tuned
 * on one seed and measured on another (the bench uses a seed the tuning never saw). Prose and the CJK
 * classes are sentences written for this corpus, shuffled and joined; the structured classes are
 * generated from templates with random names, numbers and values; the last three are mostly
 * whitespace (blank lines, deep indentation, tabs).
 */

export const corpusClasses = [
  'english-prose',
  'typescript',
  'pretty-json',
  'minified-json',
  'log-lines',
  'csv',
  'chinese',
  'japanese',
  'korean',
  'base64',
  'blank-line-page',
  'indented-code',
  'tsv',
] as const;

export type CorpusClass = (typeof corpusClasses)[number];

/** A small, fast, seeded PRNG (mulberry32). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = () => number;

const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const int = (random: Random, below: number): number => Math.floor(random() * below);

const englishSentences = [
  'The committee met on Tuesday to review the budget for the coming year.',
  'Most of the questions were about the cost of the new building and how long it would take to finish.',
  'She walked to the station in the rain, thinking about the letter she had not yet answered.',
  'According to the report, sales in the northern region grew by nearly a third.',
  'When the software was updated, several users noticed that their settings had been reset.',
  'He had never seen the ocean before, and the size of it made him quiet for a long time.',
  'The museum will be closed for repairs until the end of the month.',
  'Researchers found that people who slept less were more likely to make small mistakes at work.',
  'If you have any questions about your order, please contact our support team.',
  'The river flooded the lower part of the town twice in the last ten years.',
  'Our team is responsible for keeping the servers running and answering calls at night.',
  'It was a simple plan, but nobody believed it would actually work.',
  'The price of coffee has risen sharply because of poor harvests in several countries.',
  'Children in the village learn to swim before they learn to read.',
  'After the meeting, the manager sent a summary of the decisions to everyone involved.',
  'The old bridge, built more than a century ago, still carries thousands of cars every day.',
  'Please make sure that all windows are closed before you leave the office.',
  'The novel follows a family of farmers through three generations of war and peace.',
  'Scientists have warned that the glacier could disappear within fifty years.',
  'I would rather stay at home tonight and finish the book I started last week.',
  'The city council approved a plan to plant two thousand trees along the main roads.',
  'Many small businesses struggled to pay rent during the long winter.',
  'The first chapter explains why the project was started and who paid for it.',
  'Although the weather was cold, the market was full of people buying bread and vegetables.',
];

const chineseSentences = [
  '今天上午，市政府召开会议，讨论明年的城市建设计划。',
  '这家公司去年的销售额增长了百分之二十，主要来自海外市场。',
  '他每天早上六点起床，先跑步半个小时，然后吃早饭。',
  '由于天气原因，所有航班都推迟了两个小时。',
  '研究人员发现，睡眠不足会影响人的记忆力和判断力。',
  '如果您对订单有任何问题，请联系我们的客服人员。',
  '这座桥已经有一百多年的历史，每天仍有数千辆汽车通过。',
  '孩子们在学校里学习数学、语文和英语。',
  '新的软件更新以后，很多用户发现自己的设置被重置了。',
  '我们需要在月底之前完成这个项目的所有测试工作。',
  '这本小说讲述了一个农民家庭三代人的故事。',
  '专家认为，经济发展必须与环境保护相结合。',
  '图书馆将在下个月进行维修，暂停对外开放。',
  '她一边听音乐，一边在厨房里做晚饭。',
  '会议结束后，经理把会议纪要发给了所有参加的人。',
  '近年来，越来越多的年轻人选择在大城市工作。',
  '请在离开办公室之前关好所有的窗户。',
  '这个地区的咖啡价格因为收成不好而大幅上涨。',
];

const japaneseSentences = [
  '今日の午前中に、市役所で来年度の予算についての会議が開かれました。',
  'このソフトウェアを更新したところ、設定がすべてリセットされてしまいました。',
  '彼は毎朝六時に起きて、三十分ほどジョギングをしてから朝ごはんを食べます。',
  '天候の影響により、すべての便が二時間ほど遅れています。',
  'ご注文について何かご不明な点がございましたら、サポートまでお問い合わせください。',
  '研究者たちは、睡眠不足が記憶力や判断力に影響することを明らかにしました。',
  'この橋は百年以上前に建てられましたが、今でも毎日たくさんの車が通っています。',
  '子どもたちは学校で算数や国語、英語を勉強しています。',
  '会議のあと、マネージャーは決定事項をまとめて全員にメールで送りました。',
  '図書館は来月の終わりまで改修工事のため休館となります。',
  'この小説は、三世代にわたる農家の家族の物語を描いています。',
  '最近は、大都市で働くことを選ぶ若い人が増えています。',
  'オフィスを出る前に、すべての窓が閉まっていることを確認してください。',
  '彼女は音楽を聴きながら、キッチンで晩ごはんを作っていました。',
  'プロジェクトのテストは月末までにすべて終わらせる必要があります。',
  'コーヒーの価格は、いくつかの国での不作のために大きく上がりました。',
];

const koreanSentences = [
  '오늘 오전 시청에서 내년도 예산에 관한 회의가 열렸습니다.',
  '소프트웨어를 업데이트한 후에 많은 사용자들이 설정이 초기화된 것을 발견했습니다.',
  '그는 매일 아침 여섯 시에 일어나서 삼십 분 동안 달리기를 한 다음 아침을 먹습니다.',
  '날씨 때문에 모든 항공편이 두 시간씩 지연되었습니다.',
  '주문에 관해 궁금한 점이 있으시면 고객 지원팀에 문의해 주세요.',
  '연구진은 수면 부족이 기억력과 판단력에 영향을 준다는 사실을 밝혀냈습니다.',
  '이 다리는 백 년도 더 전에 지어졌지만 지금도 매일 수천 대의 차가 지나갑니다.',
  '아이들은 학교에서 수학과 국어, 영어를 배웁니다.',
  '회의가 끝난 뒤 팀장은 결정 사항을 정리해서 모든 참석자에게 보냈습니다.',
  '도서관은 보수 공사 때문에 다음 달 말까지 문을 닫습니다.',
  '이 소설은 삼 대에 걸친 농부 가족의 이야기를 그리고 있습니다.',
  '요즘은 대도시에서 일하기를 선택하는 젊은이들이 늘고 있습니다.',
  '사무실을 나가기 전에 모든 창문이 닫혀 있는지 확인해 주세요.',
  '그녀는 음악을 들으면서 부엌에서 저녁을 만들고 있었습니다.',
  '우리는 이번 달 말까지 프로젝트의 모든 테스트를 끝내야 합니다.',
  '몇몇 나라의 흉작 때문에 커피 가격이 크게 올랐습니다.',
];

const words = [
  'user',
  'order',
  'item',
  'price',
  'count',
  'name',
  'status',
  'created',
  'updated',
  'session',
  'request',
  'response',
  'config',
  'value',
  'index',
  'result',
  'error',
  'message',
  'payload',
  'account',
  'token',
  'page',
  'limit',
  'offset',
  'total',
  'email',
  'address',
  'city',
  'country',
  'product',
  'category',
  'description',
];
const firstNames = ['Alice', 'Bob', 'Carol', 'David', 'Erin', 'Frank', 'Grace', 'Heidi', 'Ivan', 'Judy', 'Mallory'];
const cities = ['Berlin', 'Lisbon', 'Osaka', 'Toronto', 'Nairobi', 'Lima', 'Oslo', 'Austin', 'Hanoi', 'Dublin'];

function camel(random: Random, parts: number): string {
  let name = pick(random, words);
  for (let i = 1; i < parts; i++) {
    const word = pick(random, words);
    name += word[0]!.toUpperCase() + word.slice(1);
  }
  return name;
}

function sentences(random: Random, pool: readonly string[], joiner: string, chars: number): string {
  let text = '';
  let sentence = 0;
  while (text.length < chars) {
    text += pick(random, pool);
    sentence++;
    text += sentence % 5 === 0 ? '\n\n' : joiner;
  }
  return text;
}

function typescript(random: Random, chars: number): string {
  const blocks: string[] = [];
  let length = 0;
  while (length < chars) {
    const fn = camel(random, 2);
    const type = camel(random, 1).replace(/^./, (c) => c.toUpperCase());
    const a = camel(random, 1);
    const b = camel(random, 2);
    const block = [
      `/** Returns the ${a} of a ${type.toLowerCase()}, or undefined when it has none. */`,
      `export async function ${fn}(${a}: ${type}, options: { ${b}?: number } = {}): Promise<${type} | undefined> {`,
      `  const ${b} = options.${b} ?? ${int(random, 1000)};`,
      `  if (${a}.${camel(random, 1)} === undefined) return undefined;`,
      `  for (let i = 0; i < ${a}.items.length; i++) {`,
      `    const item = ${a}.items[i]!;`,
      `    if (item.${camel(random, 1)} > ${b}) throw new RangeError(\`${fn}: item \${i} is over \${${b}}\`);`,
      '  }',
      `  return { ...${a}, ${camel(random, 1)}: await fetch${type}(${a}.id, '${pick(random, words)}') };`,
      '}',
      '',
    ].join('\n');
    blocks.push(block);
    length += block.length + 1;
  }
  return blocks.join('\n');
}

function record(random: Random, id: number): Record<string, unknown> {
  return {
    id,
    [camel(random, 1)]: `${pick(random, firstNames)} ${pick(random, firstNames)}`,
    email: `${pick(random, firstNames).toLowerCase()}.${int(random, 999)}@example.com`,
    city: pick(random, cities),
    active: random() < 0.5,
    score: Math.round(random() * 100000) / 100,
    createdAt: new Date(1.6e12 + int(random, 1e11)).toISOString(),
    tags: [pick(random, words), pick(random, words)],
    [camel(random, 2)]: { count: int(random, 500), status: pick(random, ['ok', 'pending', 'failed', 'archived']) },
  };
}

function json(random: Random, chars: number, indent: number | undefined): string {
  const items: Record<string, unknown>[] = [];
  let length = 0;
  while (length < chars) {
    const item = record(random, items.length + 1);
    items.push(item);
    length += JSON.stringify(item, null, indent).length;
  }
  return JSON.stringify({ [camel(random, 1)]: items, total: items.length }, null, indent);
}

function hex(random: Random, digits: number): string {
  let text = '';
  for (let i = 0; i < digits; i++) text += int(random, 16).toString(16);
  return text;
}

function logLines(random: Random, chars: number): string {
  const levels = ['INFO', 'INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR'];
  const lines: string[] = [];
  let length = 0;
  let time = 1.7e12 + int(random, 1e10);
  while (length < chars) {
    time += int(random, 5000);
    const stamp = new Date(time).toISOString();
    const ip = `${int(random, 256)}.${int(random, 256)}.${int(random, 256)}.${int(random, 256)}`;
    const line = pick(random, [
      () =>
        `${stamp} ${pick(random, levels)} [worker-${int(random, 16)}] GET /api/v2/${pick(random, words)}s/${int(random, 99999)} ${pick(random, [200, 200, 201, 304, 404, 500])} ${int(random, 900)}ms ip=${ip}`,
      () =>
        `${stamp} ${pick(random, levels)} [scheduler] job ${camel(random, 2)} finished in ${(random() * 10).toFixed(3)}s (${int(random, 10000)} rows)`,
      () =>
        `${stamp} ${pick(random, levels)} [db] slow query on table ${pick(random, words)}s: ${int(random, 3000)}ms, rows=${int(random, 100000)} id=${hex(random, 8)}-${hex(random, 4)}-${hex(random, 4)}-${hex(random, 12)}`,
      () =>
        `${stamp} ${pick(random, levels)} [auth] user ${pick(random, firstNames).toLowerCase()}${int(random, 100)} logged in from ${ip} session=${Math.floor(random() * 2 ** 52).toString(16)}`,
    ])();
    lines.push(line);
    length += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

function csv(random: Random, chars: number): string {
  const lines = ['id,name,email,city,amount,date,status'];
  let length = lines[0]!.length;
  while (length < chars) {
    const first = pick(random, firstNames);
    const line = [
      lines.length,
      `${first} ${pick(random, firstNames)}`,
      `${first.toLowerCase()}${int(random, 999)}@example.org`,
      pick(random, cities),
      (random() * 10000).toFixed(2),
      new Date(1.6e12 + int(random, 1e11)).toISOString().slice(0, 10),
      pick(random, ['paid', 'open', 'refunded']),
    ].join(',');
    lines.push(line);
    length += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

function base64(random: Random, chars: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  let text = '';
  for (let i = 0; i < chars; i++) {
    text += alphabet[int(random, 64)];
    if (i % 76 === 75) text += '\n';
  }
  return text;
}

/**
 * A fetched page's text as `textContent` gives it: short lines (links, headings, sentences) at the
 * page source's indentation, between runs of blank lines that are empty or carry that indentation.
 */
function blankLinePage(random: Random, chars: number): string {
  const labels = [
    'Home',
    'Products',
    'Pricing',
    'About us',
    'Contact',
    'Sign in',
    'Careers',
    'Blog',
    'Support',
    'Privacy',
  ];
  const newline = random() < 0.3 ? '\r\n' : '\n';
  let text = '';
  while (text.length < chars) {
    const indent = random() < 0.3 ? '\t'.repeat(1 + int(random, 6)) : ' '.repeat(2 * (1 + int(random, 12)));
    const line = random() < 0.5 ? pick(random, labels) : pick(random, englishSentences);
    text += indent + line + newline;
    // The blank lines after it: empty, or at the block's indentation (the markup's own lines).
    const blank = random() < 0.5 ? '' : indent;
    const blanks = int(random, 14);
    for (let i = 0; i < blanks; i++) text += (random() < 0.8 ? blank : ' '.repeat(int(random, 9))) + newline;
  }
  return text;
}

/** Markup nested 8 to 24 levels deep, two spaces a level, with an empty line between some blocks. */
function indentedCode(random: Random, chars: number): string {
  const tags = ['div', 'section', 'ul', 'li', 'span', 'table', 'tr', 'td'];
  const lines: string[] = [];
  let length = 0;
  let depth = 8;
  const open: string[] = [];
  while (length < chars) {
    const pad = '  '.repeat(depth);
    let line: string;
    if (depth < 24 && (open.length === 0 || random() < 0.45)) {
      const tag = pick(random, tags);
      open.push(tag);
      line = `${pad}<${tag} class="${camel(random, 2)}" data-id="${int(random, 10000)}">`;
      depth++;
    } else if (depth > 8 && random() < 0.5) {
      depth--;
      line = `${'  '.repeat(depth)}</${open.pop()}>`;
      if (random() < 0.2) line += '\n';
    } else {
      line = `${pad}${pick(random, [() => pick(random, englishSentences), () => `{{ ${camel(random, 2)} }}`, () => `<a href="/${pick(random, words)}/${int(random, 999)}">${pick(random, firstNames)}</a>`])()}`;
    }
    lines.push(line);
    length += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

/** Tab-separated rows, as a spreadsheet or a database client exports them, with empty fields. */
function tsv(random: Random, chars: number): string {
  const lines = ['id\tname\temail\tcity\tamount\tdate\tstatus\tnote'];
  let length = lines[0]!.length;
  while (length < chars) {
    const first = pick(random, firstNames);
    const line = [
      lines.length,
      `${first} ${pick(random, firstNames)}`,
      random() < 0.2 ? '' : `${first.toLowerCase()}${int(random, 999)}@example.org`,
      pick(random, cities),
      (random() * 10000).toFixed(2),
      new Date(1.6e12 + int(random, 1e11)).toISOString().slice(0, 10),
      random() < 0.3 ? '' : pick(random, ['paid', 'open', 'refunded']),
      random() < 0.6 ? '' : pick(random, words),
    ].join('\t');
    lines.push(line);
    length += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

/** One text of a class, about `chars` characters long, from `seed`. */
export function corpusText(kind: CorpusClass, seed: number, chars: number): string {
  const random = seeded(seed);
  switch (kind) {
    case 'english-prose':
      return sentences(random, englishSentences, ' ', chars);
    case 'typescript':
      return typescript(random, chars);
    case 'pretty-json':
      return json(random, chars, 2);
    case 'minified-json':
      return json(random, chars, undefined);
    case 'log-lines':
      return logLines(random, chars);
    case 'csv':
      return csv(random, chars);
    case 'chinese':
      return sentences(random, chineseSentences, '', chars);
    case 'japanese':
      return sentences(random, japaneseSentences, '', chars);
    case 'korean':
      return sentences(random, koreanSentences, ' ', chars);
    case 'base64':
      return base64(random, chars);
    case 'blank-line-page':
      return blankLinePage(random, chars);
    case 'indented-code':
      return indentedCode(random, chars);
    case 'tsv':
      return tsv(random, chars);
  }
}
