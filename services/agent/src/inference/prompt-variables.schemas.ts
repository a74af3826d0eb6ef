import Joi from 'joi';

import { toVariableMap, type VariableItem, type VariableMap } from './prompt-variables';

const MAX_VARIABLES = 200;
/** The JSON text form may carry as much as the object form could: up to the JSON body limit. */
const MAX_TEXT_CHARS = 1_048_576;

const objectForm = Joi.object().unknown(true).max(MAX_VARIABLES);

const listForm = Joi.array()
  .items(
    Joi.object({ name: Joi.string().min(1).max(200), key: Joi.string().min(1).max(200), value: Joi.any() })
      .xor('name', 'key')
      .unknown(true),
  )
  .max(MAX_VARIABLES);

const eitherForm = Joi.alternatives(objectForm, listForm);

// No braces in messages: joi reads them as template references.
const SHAPE = 'an object of name → value or a list of name/value items';

/** Multipart clients send the variables as JSON text (`"{}"` by default); some reuse that in JSON bodies. */
const textForm = Joi.string()
  .max(MAX_TEXT_CHARS)
  .empty('')
  .custom((text: string, helpers) => {
    if (text.trim() === '') return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return helpers.message({ custom: `must be ${SHAPE}, or the JSON text of one` });
    }
    const result = eitherForm.validate(parsed, { convert: false });
    if (result.error) return helpers.message({ custom: `holds JSON that is not ${SHAPE}` });
    return result.value as unknown;
  });

/**
 * `system_prompt_variables` of a chat body: either form public clients send (or its JSON text), normalized here to
 * one name → value map, so inference never sees the list form.
 */
export const systemPromptVariables = Joi.alternatives(objectForm, listForm, textForm)
  .custom((value: VariableMap | VariableItem[] | null) => toVariableMap(value))
  .allow(null)
  .messages({ 'alternatives.types': `must be ${SHAPE}` });
