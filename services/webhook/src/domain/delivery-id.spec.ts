import { deliveryIdFor } from './delivery-id';

describe('deliveryIdFor', () => {
  const at = '2026-11-21T07:00:00.000Z';

  it('is the same for the same webhook and event, and differs otherwise', () => {
    const id = deliveryIdFor('wh_A', 'evt_1', at);
    expect(deliveryIdFor('wh_A', 'evt_1', at)).toBe(id);
    expect(deliveryIdFor('wh_B', 'evt_1', at)).not.toBe(id);
    expect(deliveryIdFor('wh_A', 'evt_2', at)).not.toBe(id);
  });

  it('looks like any other id and sorts by the event time', () => {
    const earlier = deliveryIdFor('wh_A', 'evt_9', '2026-11-21T06:59:59.999Z');
    const later = deliveryIdFor('wh_A', 'evt_1', at);
    expect(later).toMatch(/^dlv_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(earlier < later).toBe(true);
  });

  it('still gives one id for an event without a readable time', () => {
    expect(deliveryIdFor('wh_A', 'evt_1', 'not a date')).toBe(deliveryIdFor('wh_A', 'evt_1', 'not a date'));
  });
});
