DROP TABLE buy_in_attributions;
DROP FUNCTION buy_in_attribution_holds();
