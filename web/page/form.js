// One field of the options form, from one option object of `attn-tutor lessons --json` (kind, value
// name, choices, range, default, help): a checkbox for a flag, a list for a choice, a text box for a file
// (its content becomes the file the command reads), a line otherwise. The page holds no option of its
// own: a new option in the table is a new field here with no change. `onChange(value)`: '' for "not given".
'use strict';
const attnTutorIsFileOption = (o) => o.kind === 'text' && o.value_name === 'FILE';

function attnTutorField(o, value, say, onChange) {
  const field = document.createElement('div');
  field.className = 'field';
  const id = 'opt' + o.flag;
  const label = document.createElement('label');
  label.htmlFor = id;
  const code = document.createElement('code');
  code.textContent = o.flag;
  label.append(code);
  let input;
  if (o.kind === 'flag') {
    field.classList.add('check');
    input = document.createElement('input');
    input.type = 'checkbox';
    input.checked = value !== undefined && value !== '' && value !== '0' && value !== 'false';
    label.prepend(input);
  } else if (o.kind === 'choice') {
    input = document.createElement('select');
    const none = document.createElement('option');
    none.value = '';
    none.textContent = o.default != null ? say('page.option_default', o.default) : '\u2014';
    input.append(none);
    for (const c of o.choices || []) {
      const opt = document.createElement('option');
      opt.value = c;
      opt.textContent = c;
      input.append(opt);
    }
    input.value = value || '';
  } else if (attnTutorIsFileOption(o)) {
    input = document.createElement('textarea');
    input.placeholder = say('page.inputs_hint');
    input.value = value || '';
    input.spellcheck = false;
  } else {
    input = document.createElement('input');
    input.type = 'text';
    if (o.kind === 'integer' || o.kind === 'number') input.inputMode = o.kind === 'integer' ? 'numeric' : 'decimal';
    input.placeholder = o.default != null ? say('page.option_default', o.default) : (o.value_name || '');
    input.value = value || '';
    input.spellcheck = false;
  }
  input.id = id;
  input.dataset.flag = o.flag;
  field.append(label);
  if (o.kind !== 'flag') field.append(input);
  const help = document.createElement('span');
  help.className = 'help';
  help.id = id + '-help';
  help.textContent = attnTutorIsFileOption(o) ? say('page.inputs') + '. ' + o.help : o.help;
  if (o.min !== undefined && o.max !== undefined) help.textContent += ' [' + say('page.option_range', o.min, o.max) + ']';
  input.setAttribute('aria-describedby', help.id);
  field.append(help);
  input.addEventListener('change', () => onChange(o.kind === 'flag' ? (input.checked ? '1' : '') : input.value));
  return field;
}
